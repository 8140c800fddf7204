import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

/** A program with a mistake: it reads in-degrees of a directed graph without declaring needsInEdges(). */
public final class UndeclaredInDegree implements VertexProgram {
    public RecordLayout valueLayout() { return RecordLayout.LONG; }

    public void compute(Context ctx) {
        ctx.value().setLong(0, ctx.inDegree());
        ctx.voteToHalt();
    }
}

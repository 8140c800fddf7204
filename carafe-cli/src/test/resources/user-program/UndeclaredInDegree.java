import io.carafe.pregel.Declaration;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

/** A program with a mistake: it reads in-degrees of a directed graph without declaring Declaration.readingInEdges(). */
public final class UndeclaredInDegree implements VertexProgram {
    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.DOUBLE);
    }

    public void compute(Context ctx) {
        ctx.value().setLong(0, ctx.inDegree());
        ctx.voteToHalt();
    }
}

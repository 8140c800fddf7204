import io.carafe.pregel.Declaration;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.Map;

/**
 * Each vertex ends with the second-largest original id among its in-neighbours (-1 with
 * fewer than two): no combiner, so every message along every edge is delivered on its own.
 */
public final class SecondLargestInNeighbour implements VertexProgram {
    public SecondLargestInNeighbour(Map<String, String> params) {
    }

    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG);
    }

    public void compute(Context ctx) {
        if (ctx.superstep() == 0) {
            ctx.sendToOutNeighbours(ctx.originalId());
        } else {
            long largest = -1;
            long second = -1;
            for (int i = 0; i < ctx.messageCount(); i++) {
                long id = ctx.message(i).getLong(0);
                if (id > largest) {
                    second = largest;
                    largest = id;
                } else if (id > second) {
                    second = id;
                }
            }
            ctx.value().setLong(0, second);
        }
        ctx.voteToHalt();
    }

    public String spec() { return null; } // carafe run supplies one

    public void formatValue(RecordView value, StringBuilder out) { out.append(value.getLong(0)); }
}

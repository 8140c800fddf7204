import io.carafe.pregel.Declaration;
import io.carafe.pregel.Combiner;
import io.carafe.pregel.LongCombiner;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

import java.util.Map;

/** Each vertex ends with the largest original id within {@code rounds} hops upstream of it (itself included). */
public final class MaxLabel implements VertexProgram {
    private final int rounds;

    public MaxLabel(Map<String, String> params) {
        rounds = Integer.parseInt(params.getOrDefault("rounds", "3"));
    }

    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MAX);
    }

    public void compute(Context ctx) {
        RecordView label = ctx.value();
        if (ctx.superstep() == 0) {
            label.setLong(0, ctx.originalId());
        } else if (ctx.message().getLong(0) > label.getLong(0)) {
            label.setLong(0, ctx.message().getLong(0));
        } else {
            ctx.voteToHalt();
            return;
        }
        if (ctx.superstep() < rounds) {
            ctx.sendToOutNeighbours(label.getLong(0));
        }
        ctx.voteToHalt();
    }

    public String spec() { return null; } // carafe run supplies one

    public void formatValue(RecordView value, StringBuilder out) { out.append(value.getLong(0)); }
}

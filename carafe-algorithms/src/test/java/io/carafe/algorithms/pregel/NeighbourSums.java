package io.carafe.algorithms.pregel;

import io.carafe.pregel.Declaration;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

/**
 * A program that reads other vertices' values: each vertex starts at its original id plus
 * 1,000, then each superstep takes the sum of its out-neighbours' values as the previous
 * superstep left them (modulo {@link #MODULUS}), for {@code supersteps} supersteps. It fails
 * the job when what it reads of itself is not what it holds, or superstep 0 reads anything
 * but zero.
 */
class NeighbourSums implements VertexProgram {
    static final long MODULUS = 1_000_000_007;
    private final int supersteps;

    NeighbourSums(int supersteps) {
        this.supersteps = supersteps;
    }

    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.DOUBLE).readingOtherValues();
    }

    @Override
    public void compute(Context ctx) {
        long own = ctx.longValueOf(ctx.vertex());
        if (ctx.superstep() == 0) {
            if (own != 0 || ctx.longValueOf((int) (ctx.vertexCount() - 1)) != 0) {
                throw new IllegalStateException("superstep 0 read a value that is not zero");
            }
            ctx.value().setLong(0, ctx.originalId() + 1_000);
            return;
        }
        long holds = ctx.value().getLong(0);
        if (own != holds || ctx.valueOf(ctx.vertex()).getLong(0) != holds) {
            throw new IllegalStateException("vertex " + ctx.vertex() + " read " + own + " as its own value in superstep " + ctx.superstep()
                    + ", holding " + holds);
        }
        long sum = 0;
        VertexProgram.Edges out = ctx.outEdges();
        while (out.next()) {
            sum = (sum + ctx.longValueOf(out.target())) % MODULUS;
        }
        ctx.value().setLong(0, sum); // others read the value before this, whenever they run
        if (ctx.superstep() == supersteps - 1) {
            ctx.voteToHalt();
        }
    }
}

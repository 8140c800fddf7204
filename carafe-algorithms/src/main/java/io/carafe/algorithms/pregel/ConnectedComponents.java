package io.carafe.algorithms.pregel;

import io.carafe.pregel.Combiner;
import io.carafe.pregel.VertexProgram;

/**
 * Weakly connected components by label propagation (HashMin): every vertex starts with
 * its own id as label and adopts the smallest label it hears of. Needs a graph with both
 * directions stored; the label of a component is its smallest internal id, which, since
 * internal ids follow original ids, is also its smallest original id.
 */
public final class ConnectedComponents implements VertexProgram {

    @Override
    public void compute(Context ctx) {
        if (ctx.superstep() == 0) {
            ctx.setValue(ctx.vertex());
            ctx.sendToNeighbours(ctx.vertex());
        } else if (ctx.hasMessages() && ctx.message() < ctx.value()) {
            ctx.setValue(ctx.message());
            ctx.sendToNeighbours(ctx.message());
        }
        ctx.voteToHalt();
    }

    @Override
    public Combiner combiner() {
        return Combiner.MIN;
    }

    @Override
    public String spec() {
        return "wcc";
    }
}

package io.carafe.algorithms.pregel;

import io.carafe.pregel.Combiner;
import io.carafe.pregel.VertexProgram;

/**
 * Single-source shortest paths as a vertex program (Bellman-Ford rounds): a vertex whose
 * distance improves sends distance + edge weight along its edges; the min combiner keeps
 * one message per target. With {@code hops} every edge weighs 1, which gives BFS levels.
 * Unreached vertices keep +Infinity.
 */
public final class ShortestPaths implements VertexProgram {
    private final int source;
    private final boolean hops;

    public ShortestPaths(int source, boolean hops) {
        this.source = source;
        this.hops = hops;
    }

    @Override
    public void compute(Context ctx) {
        if (ctx.superstep() == 0) {
            boolean isSource = ctx.vertex() == source;
            ctx.setValue(isSource ? 0 : Double.POSITIVE_INFINITY);
            if (isSource) {
                send(ctx, 0);
            }
        } else if (ctx.hasMessages() && ctx.message() < ctx.value()) {
            ctx.setValue(ctx.message());
            send(ctx, ctx.message());
        }
        ctx.voteToHalt();
    }

    private void send(Context ctx, double distance) {
        if (hops) {
            ctx.sendToNeighbours(distance + 1);
        } else {
            ctx.sendToNeighboursPlusWeight(distance);
        }
    }

    @Override
    public Combiner combiner() {
        return Combiner.MIN;
    }

    @Override
    public String spec() {
        return "shortest-paths source=" + source + " hops=" + hops;
    }
}

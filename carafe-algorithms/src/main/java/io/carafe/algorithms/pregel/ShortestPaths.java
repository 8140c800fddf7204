package io.carafe.algorithms.pregel;

import io.carafe.pregel.Combiner;
import io.carafe.pregel.DoubleCombiner;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

/**
 * Single-source shortest paths as a vertex program (Bellman-Ford rounds): a vertex whose
 * distance improves sends distance + weight along each out-edge (declared as
 * {@link Sends#OUT_NEIGHBOURS_ONCE_PLUS_WEIGHT}: it sends its distance, the engine adds the
 * weights); the min combiner keeps one message per target. Unreached vertices keep +Infinity (LDBC's "infinity").
 */
public final class ShortestPaths implements VertexProgram {
    private final int source;

    public ShortestPaths(int source) {
        this.source = source;
    }

    /** The search starts at the source alone; every other vertex starts at +Infinity, halted. */
    @Override
    public int[] startVertices() {
        return new int[] {source};
    }

    @Override
    public void initialValue(RecordView distance) {
        distance.setDouble(0, Double.POSITIVE_INFINITY);
    }

    @Override
    public void compute(Context ctx) {
        double distance;
        if (ctx.superstep() == 0) { // the source (and every vertex, under a wrapper that does not pass startVertices on)
            distance = ctx.vertex() == source ? 0 : Double.POSITIVE_INFINITY;
            ctx.value().setDouble(0, distance);
            if (ctx.vertex() != source) {
                ctx.voteToHalt();
                return;
            }
        } else {
            distance = ctx.message().getDouble(0);
            if (!(distance < ctx.value().getDouble(0))) {
                ctx.voteToHalt();
                return;
            }
            ctx.value().setDouble(0, distance);
        }
        ctx.sendToOutNeighbours(distance); // each out-neighbour gets distance + the edge's weight (sends())
        ctx.voteToHalt();
    }

    /** A relaxation: the engine adds each edge's weight, and may push or gather, superstep by superstep. */
    @Override
    public Sends sends() {
        return Sends.OUT_NEIGHBOURS_ONCE_PLUS_WEIGHT;
    }

    @Override
    public Combiner combiner() {
        return DoubleCombiner.MIN;
    }

    /** As carafe dijkstra writes distances: an integer as an integer, unreachable as {@code inf}. */
    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        double d = value.getDouble(0);
        if (Double.isInfinite(d)) {
            out.append("inf");
        } else if (d == Math.rint(d) && Math.abs(d) < 0x1p53) {
            out.append((long) d);
        } else {
            out.append(d);
        }
    }

    @Override
    public String spec() {
        return "sssp source=" + source;
    }
}

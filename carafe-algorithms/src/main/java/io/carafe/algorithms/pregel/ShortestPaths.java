package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.DoubleCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.function.IntFunction;

/**
 * Single-source shortest paths as a vertex program (Bellman-Ford rounds): a vertex whose
 * distance improves sends distance + weight along each out-edge (declared as
 * {@link Declaration#plusWeight}: it sends its distance, the engine adds the
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
    public Declaration declaration() {
        return Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.MIN).sendingAlongOutEdges().plusWeight();
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

    /**
     * The verifier of distances from {@code source}, whichever kernel computed them (this
     * program, Δ-stepping, the online Dijkstra): every vertex's, +Infinity where unreached,
     * exactly equal to a textbook Dijkstra's ({@link References#shortestDistances}).
     */
    public static Verdict verify(GraphFile g, int source, double[] distance, IntFunction<String> name) {
        double[] want = References.shortestDistances(g, source);
        for (int v = 0; v < want.length; v++) {
            if (Double.compare(want[v], distance[v]) != 0) {
                return difference(v, distance[v], want[v], name);
            }
        }
        return Verdict.agreement("every distance matches an independent Dijkstra's");
    }

    /** As {@link #verify}, for one vertex's distance only: a search that stopped at its target settled no other. */
    public static Verdict verifyOne(GraphFile g, int source, int vertex, double distance, IntFunction<String> name) {
        double want = References.shortestDistances(g, source)[vertex];
        return Double.compare(want, distance) == 0 ? Verdict.agreement("the distance matches an independent Dijkstra's")
                : difference(vertex, distance, want, name);
    }

    private static Verdict difference(int v, double got, double want, IntFunction<String> name) {
        return Verdict.difference("vertex " + name.apply(v) + ": distance " + got + ", a textbook Dijkstra says " + want);
    }
}

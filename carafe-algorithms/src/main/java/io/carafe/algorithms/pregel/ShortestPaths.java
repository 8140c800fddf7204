package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.graph.GraphHeader;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Aggregator;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.DoubleCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.List;
import java.util.function.IntFunction;

/**
 * Single-source shortest paths as a vertex program: a vertex whose distance improves sends
 * distance + weight along each out-edge (declared as {@link Declaration#plusWeight}: it sends
 * its distance, the engine adds the weights); the min combiner keeps one message per target.
 * Unreached vertices keep +Infinity (LDBC's "infinity").
 *
 * <p>Buckets {@code delta} wide, as Δ-stepping's (Meyer and Sanders, 2003): a vertex sends
 * only while its distance lies below the current bucket's end; one that improved beyond it
 * waits, not halted, its distance stored negated (the sign says "not yet sent"), and sends
 * once the bucket reaches it, so most vertices send once, with a distance that is final,
 * rather than once per improvement. The master moves the bucket's end past the smallest
 * waiting distance when a superstep sent nothing. With {@code delta} infinite it is
 * Bellman-Ford's rounds: every improvement is sent at once. Weights are non-negative (the
 * commands refuse others).
 */
public final class ShortestPaths implements VertexProgram {
    // globals
    private static final int BUCKET_END = 0;
    // aggregators
    private static final int LEAST_WAITING = 0;

    private final int source;
    private final double delta;

    /** From {@code source} in Bellman-Ford's rounds: every improvement sent at once. */
    public ShortestPaths(int source) {
        this(source, Double.POSITIVE_INFINITY);
    }

    /** From {@code source}, with buckets {@code delta} wide (positive; infinite: Bellman-Ford's rounds). */
    public ShortestPaths(int source, double delta) {
        if (!(delta > 0)) {
            throw new IllegalArgumentException("delta must be positive (infinite for Bellman-Ford's rounds), was " + delta);
        }
        this.source = source;
        this.delta = delta;
    }

    /**
     * The bucket width for a graph: twice its largest weight, so that a bucket spans a few
     * edges' worth of distance. On livejournal-synthetic with weights 1–255 that computed as
     * fast as Bellman-Ford's rounds, and on a 1400 × 1400 grid (a road network's diameter) five
     * times faster, with 1/50 of the messages (docs/measure/notebook.md, "Δ-stepping on the
     * engine"). Unweighted: infinite, as every vertex's first distance is its last.
     */
    public static double suggestedDelta(GraphHeader header) {
        double largest = header.weighted() ? header.maxWeight() : 0;
        return largest > 0 ? 2 * largest : Double.POSITIVE_INFINITY;
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
    public List<Aggregator> aggregators() {
        return List.of(Aggregator.minDouble());
    }

    @Override
    public int globals() {
        return 1;
    }

    @Override
    public void compute(Context ctx) {
        RecordView value = ctx.value();
        if (ctx.superstep() == 0) { // the source (and every vertex, under a wrapper that does not pass startVertices on)
            if (ctx.vertex() != source) {
                value.setDouble(0, Double.POSITIVE_INFINITY);
                ctx.voteToHalt();
                return;
            }
            value.setDouble(0, 0);
            ctx.sendToOutNeighbours(0.0); // each out-neighbour gets the edge's weight (plusWeight)
            ctx.voteToHalt();
            return;
        }
        double stored = value.getDouble(0);
        boolean waiting = isWaiting(stored);
        double distance = Math.abs(stored);
        if (ctx.hasMessages() && ctx.messageDouble() < distance) {
            distance = ctx.messageDouble();
            waiting = true;
        }
        if (!waiting) {
            ctx.voteToHalt();
            return;
        }
        if (distance < ctx.globalDouble(BUCKET_END)) {
            value.setDouble(0, distance);
            ctx.sendToOutNeighbours(distance);
            ctx.voteToHalt();
        } else {
            value.setDouble(0, -distance); // waits for its bucket, computed each superstep until then
            ctx.aggregate(LEAST_WAITING, distance);
        }
    }

    /** Whether a stored distance waits to be sent: its sign bit (-0.0 is the source's, were it ever to wait). */
    private static boolean isWaiting(double stored) {
        return Double.doubleToRawLongBits(stored) < 0;
    }

    /**
     * The bucket moves on when a superstep sent nothing: every vertex still waiting lies at or
     * past its end, the least of them in the next bucket that holds any.
     */
    @Override
    public boolean masterCompute(MasterContext master) {
        if (master.superstep() == 0) {
            master.setGlobal(BUCKET_END, delta);
        } else if (master.messagesSent() == 0) {
            double least = master.aggregatedDouble(LEAST_WAITING);
            if (least < Double.POSITIVE_INFINITY) {
                master.setGlobal(BUCKET_END, Double.isInfinite(delta) ? delta : (Math.floor(least / delta) + 1) * delta);
            }
        }
        return false;
    }

    /** A relaxation: the engine adds each edge's weight, and may push or gather, superstep by superstep. */
    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.MIN).sendingAlongOutEdges().plusWeight();
    }

    /** As carafe dijkstra writes distances: an integer as an integer, unreachable as {@code inf}. */
    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        double d = Math.abs(value.getDouble(0)); // a distance not yet sent is stored negated
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
        return "sssp source=" + source + " delta=" + delta;
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

package io.carafe.algorithms.resident;

import java.util.Arrays;

/**
 * PageRank as GAP's {@code pr} computes it, on threads of this process over a resident
 * graph's in-edges: each iteration pulls, for every vertex, the contributions (rank /
 * out-degree) of its in-neighbours, and writes its own contribution for the next
 * iteration in the same pass. The definition is LDBC's, as the engine's
 * {@code PageRank} program has it: PR_k(v) = (1 - d)/N + d (Σ PR_{k-1}(u)/out(u) + D_{k-1}/N),
 * D the rank of the vertices without out-edges (lost instead with {@code dropDangling}).
 * Sums over chunks go in chunk order, so a run gives the same bits whatever the threads.
 *
 * <p>Contributions live in <em>slots</em>: the vertices with out-edges numbered by
 * out-degree, highest first, and the in-edges name their sources' slots. The pull loop
 * loads one contribution per in-edge at a random place; the heavy senders, read most,
 * then share the front of the array and stay in cache (as the engine's gather does, and
 * docs/measure/pull_floor.c measured in C: half the time of the same loop over vertex ids).
 */
public final class PullPageRank {
    private static final int GRAIN = 1 << 12;

    /** Ranks, the iterations run, the L1 change of the last one, and the seconds. */
    public record Result(double[] rank, int iterations, double residual, double seconds) {
    }

    private final ResidentGraph g;
    private final Parallel parallel;
    private final int[] inStart;
    private final int[] inSlots;  // per in-edge: the slot of its source
    private final int[] slotOf;   // per vertex: its slot, -1 without out-edges
    private final int[] outDegree;
    private final int slots;

    /** A PageRank over {@code g} with {@code parallel}'s threads; reads the graph's in-edges if they are not yet. */
    public PullPageRank(ResidentGraph g, Parallel parallel) {
        this.g = g;
        this.parallel = parallel;
        Adjacency in = g.in();
        int n = g.vertexCount();
        int[] start = g.out().start();
        this.outDegree = new int[n];
        int max = 0;
        for (int v = 0; v < n; v++) {
            outDegree[v] = start[v + 1] - start[v];
            max = Math.max(max, outDegree[v]);
        }
        // slots by out-degree descending, ids ascending within a degree (a counting sort)
        int[] next = new int[max + 2];
        for (int d : outDegree) {
            next[d]++;
        }
        int at = 0;
        for (int d = max; d >= 1; d--) {
            int count = next[d];
            next[d] = at;
            at += count;
        }
        this.slots = at;
        this.slotOf = new int[n];
        for (int v = 0; v < n; v++) {
            slotOf[v] = outDegree[v] > 0 ? next[outDegree[v]]++ : -1;
        }
        this.inStart = in.start();
        int[] sources = in.targets();
        this.inSlots = new int[sources.length];
        parallel.forEach(sources.length, 1 << 16, (from, to) -> {
            for (int e = from; e < to; e++) {
                inSlots[e] = slotOf[sources[e]];
            }
        });
        parallel.forEach(n, GRAIN, (from, to) -> {
            for (int v = from; v < to; v++) {
                Arrays.sort(inSlots, inStart[v], inStart[v + 1]);
            }
        });
    }

    /** Runs up to {@code iterations} updates, fewer if the L1 change of one falls below {@code tolerance} (0: never). */
    public Result run(double damping, int iterations, double tolerance, boolean dropDangling) {
        if (damping < 0 || damping > 1) {
            throw new IllegalArgumentException("damping must be in [0, 1], was " + damping);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("PageRank needs at least one iteration, was " + iterations);
        }
        long began = System.nanoTime();
        int n = g.vertexCount();
        int chunks = (n + GRAIN - 1) / GRAIN;
        double[] rank = new double[n];
        double[] next = new double[n];
        double[] contribution = new double[slots];
        double[] nextContribution = new double[slots];
        double[] dangling = new double[chunks];
        double[] change = new double[chunks];
        double initial = 1.0 / n;
        parallel.forEach(n, GRAIN, (from, to) -> {
            double lost = 0;
            for (int v = from; v < to; v++) {
                rank[v] = initial;
                if (outDegree[v] > 0) {
                    contribution[slotOf[v]] = initial / outDegree[v];
                } else {
                    lost += initial;
                }
            }
            dangling[from / GRAIN] = lost;
        });
        int[] start = inStart;
        int[] sources = inSlots;
        int[] slot = slotOf;
        int done = 0;
        double residual = Double.NaN;
        double[] r = rank;
        double[] nr = next;
        double[] c = contribution;
        double[] nc = nextContribution;
        while (done < iterations) {
            double base = (1 - damping) / n + (dropDangling ? 0 : damping * sumInOrder(dangling) / n);
            double[] old = r;
            double[] updated = nr;
            double[] pulled = c;
            double[] pushed = nc;
            parallel.forEach(n, GRAIN, (from, to) -> {
                double lost = 0;
                double moved = 0;
                for (int v = from; v < to; v++) {
                    double sum = 0;
                    for (int e = start[v], end = start[v + 1]; e < end; e++) {
                        sum += pulled[sources[e]];
                    }
                    double value = base + damping * sum;
                    moved += Math.abs(value - old[v]);
                    updated[v] = value;
                    int degree = outDegree[v];
                    if (degree > 0) {
                        pushed[slot[v]] = value / degree;
                    } else {
                        lost += value;
                    }
                }
                dangling[from / GRAIN] = lost;
                change[from / GRAIN] = moved;
            });
            r = updated;
            nr = old;
            c = pushed;
            nc = pulled;
            done++;
            residual = sumInOrder(change);
            if (tolerance > 0 && residual < tolerance) {
                break;
            }
        }
        return new Result(r, done, residual, (System.nanoTime() - began) / 1e9);
    }

    private static double sumInOrder(double[] parts) {
        double sum = 0;
        for (double p : parts) {
            sum += p;
        }
        return sum;
    }
}

package io.carafe.algorithms.resident;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Single-source shortest paths by Δ-stepping (Meyer and Sanders, 2003) as GAP's {@code sssp}
 * runs it: vertices wait in buckets of width Δ by tentative distance, every thread keeps
 * buckets of its own, and a round relaxes the out-edges of the lowest non-empty bucket's
 * vertices in parallel (a compare-and-set lowers a distance). A thread whose own copy of
 * that bucket refills with few vertices relaxes them at once, without a round of its own
 * (bucket fusion). A vertex may sit in a bucket more than once; a stale entry (its distance
 * fell below the bucket) is skipped. Weights must be >= 0; an unweighted graph counts hops.
 *
 * <p>One instance serves many searches, one at a time: its buckets and frontier are kept.
 */
public final class DeltaStepping {
    private static final VarHandle DISTANCE = MethodHandles.arrayElementVarHandle(double[].class);
    /** A thread's bucket smaller than this is relaxed at once by that thread (GAP's kBinSizeThreshold). */
    private static final int FUSE_BELOW = 1000;
    private static final int GRAIN = 64;

    /** Distances (+Infinity where unreachable), how many vertices were reached and the search's seconds. */
    public record Result(int source, double[] distance, long reached, double seconds) {
    }

    private final ResidentGraph g;
    private final Parallel parallel;
    private final Adjacency out;
    private final double[] weights; // null: every edge weighs 1
    private final double delta;
    private final Buckets[] buckets;
    private int[] frontier = new int[1024];

    /**
     * A search over {@code g} with {@code parallel}'s threads and buckets {@code delta} wide;
     * reads the weights if they are not yet, unless {@code hops}: then every edge weighs 1
     * and distances are BFS levels.
     */
    public DeltaStepping(ResidentGraph g, Parallel parallel, double delta, boolean hops) {
        if (!(delta > 0) || Double.isInfinite(delta)) {
            throw new IllegalArgumentException("delta must be a positive number, was " + delta);
        }
        if (!hops && g.graph().isWeighted() && g.graph().header().minWeight() < 0) {
            throw new IllegalArgumentException("graph '" + g.graph().name() + "' has negative weights (smallest " + g.graph().header().minWeight()
                    + "); shortest paths need weights >= 0: import again with ImportOptions.weightMap abs or add:X, or ImportOptions.weights unit or random");
        }
        this.g = g;
        this.parallel = parallel;
        this.out = g.out();
        this.weights = hops ? null : g.weights();
        this.delta = delta;
        this.buckets = new Buckets[parallel.threads()];
        for (int t = 0; t < buckets.length; t++) {
            buckets[t] = new Buckets();
        }
    }

    /**
     * A bucket width when the caller has none: the smallest weight (1 for hops or an
     * unweighted graph), but at least the largest / 1024, so that tiny weights do not make
     * millions of buckets. Narrow widths measured best on weights 1-255, wide ones slower
     * (docs/measure/notebook.md).
     */
    public static double suggestedDelta(ResidentGraph g, boolean hops) {
        if (hops || !g.graph().isWeighted()) {
            return 1;
        }
        double width = Math.max(g.graph().header().minWeight(), g.graph().header().maxWeight() / 1024);
        return width > 0 ? width : 1;
    }

    public Result run(int source) {
        int n = g.vertexCount();
        if (source < 0 || source >= n) {
            throw new IllegalArgumentException("source " + source + " is not a vertex of '" + g.graph().name() + "'");
        }
        long began = System.nanoTime();
        double[] distance = new double[n];
        parallel.forEach(n, 1 << 14, (from, to) -> Arrays.fill(distance, from, to, Double.POSITIVE_INFINITY));
        for (Buckets b : buckets) {
            b.clear();
        }
        distance[source] = 0;
        frontier[0] = source;
        int size = 1;
        int bucket = 0;
        while (true) {
            int current = bucket;
            int count = size;
            int[] work = frontier;
            AtomicInteger next = new AtomicInteger();
            parallel.onEveryThread(t -> {
                Buckets mine = buckets[t];
                double floor = delta * current;
                for (int from; (from = next.getAndAdd(GRAIN)) < count; ) {
                    for (int i = from, to = Math.min(count, from + GRAIN); i < to; i++) {
                        int u = work[i];
                        if (distance[u] >= floor) {
                            relax(u, distance, mine, current);
                        }
                    }
                }
                for (int fused; (fused = mine.size(current)) > 0 && fused < FUSE_BELOW; ) {
                    int[] batch = mine.take(current);
                    for (int i = 0; i < fused; i++) {
                        relax(batch[i], distance, mine, current);
                    }
                    mine.recycle(batch);
                }
            });
            bucket = Integer.MAX_VALUE;
            for (Buckets b : buckets) {
                bucket = Math.min(bucket, b.lowestFrom(current));
            }
            if (bucket == Integer.MAX_VALUE) {
                break;
            }
            size = 0;
            for (Buckets b : buckets) {
                size += b.size(bucket);
            }
            if (frontier.length < size) {
                frontier = new int[Math.max(size, frontier.length * 2)];
            }
            size = 0;
            for (Buckets b : buckets) {
                size = b.drainInto(bucket, frontier, size);
            }
        }
        long reached = 0;
        for (double d : distance) {
            if (d != Double.POSITIVE_INFINITY) {
                reached++;
            }
        }
        return new Result(source, distance, reached, (System.nanoTime() - began) / 1e9);
    }

    /** Lowers the distances of {@code u}'s out-neighbours through it, each lowered one into the bucket of its new distance. */
    private void relax(int u, double[] distance, Buckets mine, int current) {
        double du = distance[u];
        double[] w = weights;
        int[] targets = out.targets();
        int[] start = out.start();
        for (int e = start[u], end = start[u + 1]; e < end; e++) {
            int v = targets[e];
            double candidate = du + (w == null ? 1.0 : w[e]);
            double old = (double) DISTANCE.getOpaque(distance, v);
            while (candidate < old) {
                if (DISTANCE.compareAndSet(distance, v, old, candidate)) {
                    mine.add(bucketOf(candidate, current), v);
                    break;
                }
                old = (double) DISTANCE.getOpaque(distance, v);
            }
        }
    }

    private int bucketOf(double distance, int current) {
        double b = distance / delta;
        if (b >= Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("distance " + distance + " is over 2^31 buckets of width " + delta + ": pass a larger delta");
        }
        return Math.max(current, (int) b); // never below the bucket being relaxed
    }

    /** One thread's buckets: growable int lists by bucket number, and the highest bucket used. */
    private static final class Buckets {
        private int[][] lists = new int[64][];
        private int[] sizes = new int[64];
        private int highest = -1;
        private int[] spare;

        void add(int bucket, int v) {
            if (bucket >= lists.length) {
                int length = Math.max(bucket + 1, lists.length * 2);
                lists = Arrays.copyOf(lists, length);
                sizes = Arrays.copyOf(sizes, length);
            }
            int[] list = lists[bucket];
            int size = sizes[bucket];
            if (list == null) {
                list = spare != null ? spare : new int[16];
                spare = null;
                lists[bucket] = list;
            } else if (size == list.length) {
                list = Arrays.copyOf(list, size * 2);
                lists[bucket] = list;
            }
            list[size] = v;
            sizes[bucket] = size + 1;
            highest = Math.max(highest, bucket);
        }

        int size(int bucket) {
            return bucket < sizes.length ? sizes[bucket] : 0;
        }

        /** Takes bucket {@code b}'s list away (its size is what {@link #size} said); the bucket starts empty. */
        int[] take(int b) {
            int[] list = lists[b];
            lists[b] = null;
            sizes[b] = 0;
            return list;
        }

        /** A taken list, kept for the next bucket that needs one. */
        void recycle(int[] list) {
            if (spare == null || spare.length < list.length) {
                spare = list;
            }
        }

        /** The lowest non-empty bucket from {@code from} on, or Integer.MAX_VALUE. */
        int lowestFrom(int from) {
            for (int b = from; b <= highest; b++) {
                if (sizes[b] > 0) {
                    return b;
                }
            }
            return Integer.MAX_VALUE;
        }

        /** Appends bucket {@code b} to {@code into} at {@code at} and empties it; returns the new end. */
        int drainInto(int b, int[] into, int at) {
            int size = size(b);
            if (size > 0) {
                System.arraycopy(lists[b], 0, into, at, size);
                recycle(take(b));
            }
            return at + size;
        }

        void clear() {
            Arrays.fill(lists, null);
            Arrays.fill(sizes, 0);
            highest = -1;
        }
    }
}

package io.carafe.algorithms.resident;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Weakly connected components by Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018; the
 * algorithm of GAP's {@code cc}): a concurrent union-find over one int per vertex, linked
 * first through only each vertex's first two neighbours, which already joins most of a
 * large component; then a sample names that component, and only vertices outside it
 * walk the rest of their edges. Links point a root at a smaller id, so every tree's root
 * is its smallest internal id, which (internal ids follow the original ones) has the
 * component's smallest original id: the label LDBC asks for, as the Pregel program gives.
 *
 * <p>Skipping the large component's vertices needs every edge seen from both ends; on a
 * directed graph those vertices still walk their edges, linking only targets outside it.
 */
public final class Afforest {
    private static final VarHandle PARENT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int NEIGHBOUR_ROUNDS = 2;
    private static final int SAMPLES = 1024;
    private static final int GRAIN = 1 << 12;

    /** Every vertex's label (its component's smallest original id), the component count and the largest component. */
    public record Result(long[] labels, int components, int largest, long largestLabel, double seconds) {
    }

    private Afforest() {
    }

    public static Result run(ResidentGraph g, Parallel parallel) {
        long began = System.nanoTime();
        int n = g.vertexCount();
        Adjacency out = g.out();
        int[] start = out.start();
        int[] targets = out.targets();
        int[] parent = new int[n];
        parallel.forEach(n, GRAIN, (from, to) -> {
            for (int v = from; v < to; v++) {
                parent[v] = v;
            }
        });
        for (int r = 0; r < NEIGHBOUR_ROUNDS; r++) {
            int round = r;
            parallel.forEach(n, GRAIN, (from, to) -> {
                for (int v = from; v < to; v++) {
                    if (round < start[v + 1] - start[v]) {
                        link(parent, v, targets[start[v] + round]);
                    }
                }
            });
            parallel.forEach(n, GRAIN, (from, to) -> compress(parent, from, to));
        }
        int large = mostFrequent(parent);
        boolean bothEnds = !g.graph().isDirected();
        parallel.forEach(n, GRAIN, (from, to) -> {
            for (int v = from; v < to; v++) {
                boolean inLarge = parent[v] == large;
                if (inLarge && bothEnds) {
                    continue;
                }
                for (int e = start[v] + NEIGHBOUR_ROUNDS, end = start[v + 1]; e < end; e++) {
                    int t = targets[e];
                    if (!inLarge || parent[t] != large) {
                        link(parent, v, t);
                    }
                }
            }
        });
        parallel.forEach(n, GRAIN, (from, to) -> compress(parent, from, to));
        long[] labels = new long[n];
        parallel.forEach(n, GRAIN, (from, to) -> {
            for (int v = from; v < to; v++) {
                labels[v] = g.originalId(parent[v]);
            }
        });
        double seconds = (System.nanoTime() - began) / 1e9;
        // for the summary: roots are the vertices that are their own parent
        int[] size = new int[n];
        int components = 0;
        int largest = 0;
        long largestLabel = -1;
        for (int v = 0; v < n; v++) {
            size[parent[v]]++;
        }
        for (int v = 0; v < n; v++) {
            if (parent[v] == v) {
                components++;
                if (size[v] > largest) {
                    largest = size[v];
                    largestLabel = labels[v];
                }
            }
        }
        return new Result(labels, components, largest, largestLabel, seconds);
    }

    /**
     * Joins the trees of {@code u} and {@code v}: the larger of two roots is pointed at the
     * smaller by compare-and-set; a lost race means another thread moved that root, so
     * climb and try again.
     */
    private static void link(int[] parent, int u, int v) {
        int p1 = (int) PARENT.getOpaque(parent, u);
        int p2 = (int) PARENT.getOpaque(parent, v);
        while (p1 != p2) {
            int high = Math.max(p1, p2);
            int low = Math.min(p1, p2);
            int highParent = (int) PARENT.getOpaque(parent, high);
            if (highParent == low || (highParent == high && PARENT.compareAndSet(parent, high, high, low))) {
                return;
            }
            p1 = (int) PARENT.getOpaque(parent, highParent);
            p2 = (int) PARENT.getOpaque(parent, low);
        }
    }

    /** Points every vertex of the range straight at its root (no links run meanwhile). */
    private static void compress(int[] parent, int from, int to) {
        for (int v = from; v < to; v++) {
            int p;
            while ((p = parent[v]) != parent[p]) {
                parent[v] = parent[p];
            }
        }
    }

    /** The root most of a fixed random sample of vertices point at: the large component, if there is one. */
    private static int mostFrequent(int[] parent) {
        if (parent.length == 0) {
            return -1;
        }
        SplittableRandom random = new SplittableRandom(27491095L);
        int[] sample = new int[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            sample[i] = parent[random.nextInt(parent.length)];
        }
        Arrays.sort(sample);
        int best = sample[0];
        int bestRun = 0;
        for (int i = 0, run = 0; i < SAMPLES; i++) {
            run = i > 0 && sample[i] == sample[i - 1] ? run + 1 : 1;
            if (run > bestRun) {
                bestRun = run;
                best = sample[i];
            }
        }
        return best;
    }
}

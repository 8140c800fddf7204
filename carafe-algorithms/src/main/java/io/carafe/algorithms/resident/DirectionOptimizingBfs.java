package io.carafe.algorithms.resident;

import io.carafe.algorithms.online.Bfs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

/**
 * Breadth-first search that switches direction by level (Beamer, Asanović and Patterson,
 * SC 2012; the algorithm of GAP's {@code bfs}), over a graph resident in this process with
 * its in-edges. Top-down, the frontier's vertices claim their unvisited out-neighbours by
 * compare-and-set; bottom-up, every unvisited vertex looks through its in-neighbours for
 * one in the frontier (a bitmap) and stops at the first. Bottom-up pays when the frontier's
 * out-edges outnumber the unexplored edges / {@link #ALPHA}, and ends when the frontier
 * shrinks below n / {@link #BETA} vertices and stops growing: the middle levels of a
 * small-world graph touch a fraction of its edges.
 *
 * <p>Levels are as {@link Bfs} gives them; a parent is some in-neighbour one level up (which
 * one depends on the direction and the threads' timing). The source's parent is -1. One
 * instance serves many searches, one at a time: its frontier queue and bitmaps are
 * allocated once (a fresh array per search cost more than the search's middle level did).
 */
public final class DirectionOptimizingBfs {
    private static final VarHandle DEPTH = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle WORD = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int ALPHA = 15;
    private static final int BETA = 18;
    /** Vertices per chunk: a multiple of 64, so a bottom-up chunk owns whole words of the next frontier. */
    private static final int GRAIN = 1 << 10;
    /** Frontier vertices per chunk: few, since a level's first vertices may be hubs. */
    private static final int TOP_DOWN_GRAIN = 64;

    private final ResidentGraph g;
    private final Parallel parallel;
    private final Adjacency out;
    private final Adjacency in;
    private final int[] queue;
    private long[] front;
    private long[] next;
    private final LongAdder explored = new LongAdder();
    private final LongAdder counted = new LongAdder();
    private final StringBuilder directions = new StringBuilder();

    /** A search over {@code g} with {@code parallel}'s threads; reads the graph's in-edges if they are not yet. */
    public DirectionOptimizingBfs(ResidentGraph g, Parallel parallel) {
        this.g = g;
        this.parallel = parallel;
        this.out = g.out();
        this.in = g.in();
        int n = g.vertexCount();
        this.queue = new int[n];
        this.front = new long[(n + 63) >>> 6];
        this.next = new long[front.length];
    }

    /** Searches from {@code source}: depths and parents in arrays of its own. */
    public Bfs.Result run(int source) {
        int n = g.vertexCount();
        if (source < 0 || source >= n) {
            throw new IllegalArgumentException("source " + source + " is not a vertex of '" + g.graph().name() + "'");
        }
        long began = System.nanoTime();
        int[] depth = new int[n];
        int[] parent = new int[n];
        parallel.forEach(n, GRAIN << 4, (from, to) -> {
            Arrays.fill(depth, from, to, -1);
            Arrays.fill(parent, from, to, -1);
        });
        explored.reset();
        directions.setLength(0);

        depth[source] = 0;
        queue[0] = source;
        int queueSize = 1;
        long reached = 1;
        long edgesToCheck = out.edges();
        long scout = out.degree(source);
        int level = 0;
        while (queueSize > 0) {
            if (scout > edgesToCheck / ALPHA) {
                Arrays.fill(front, 0);
                for (int i = 0; i < queueSize; i++) {
                    front[queue[i] >>> 6] |= 1L << queue[i];
                }
                long awake = queueSize;
                long before;
                do {
                    before = awake;
                    level++;
                    Arrays.fill(next, 0);
                    counted.reset();
                    bottomUp(depth, parent, level, n);
                    directions.append('B');
                    awake = counted.sum();
                    reached += awake;
                    long[] swap = front;
                    front = next;
                    next = swap;
                } while (awake >= before || awake > n / BETA);
                queueSize = toQueue(front, queue);
                scout = 1;
            } else {
                edgesToCheck -= scout;
                level++;
                Arrays.fill(next, 0);
                counted.reset();
                topDown(depth, parent, queueSize, level);
                directions.append('T');
                scout = counted.sum();
                queueSize = toQueue(next, queue);
                reached += queueSize;
            }
        }
        return new Bfs.Result(source, depth, parent, explored.sum(), reached, (System.nanoTime() - began) / 1e9);
    }

    /**
     * How the last search went, a letter per level after the source's: T top-down, B
     * bottom-up (the last level finds nothing new).
     */
    public String directions() {
        return directions.toString();
    }

    /** The frontier's vertices claim their unvisited out-neighbours into {@link #next}; {@link #counted} gets the claimed vertices' out-edges. */
    private void topDown(int[] depth, int[] parent, int size, int level) {
        long[] next = this.next;
        int[] queue = this.queue;
        int[] start = out.start();
        int[] targets = out.targets();
        parallel.forEach(size, TOP_DOWN_GRAIN, (from, to) -> {
            long edges = 0;
            long claimed = 0;
            for (int i = from; i < to; i++) {
                int u = queue[i];
                int first = start[u];
                int end = start[u + 1];
                edges += end - first;
                for (int e = first; e < end; e++) {
                    int v = targets[e];
                    if (depth[v] < 0 && DEPTH.compareAndSet(depth, v, -1, level)) {
                        parent[v] = u;
                        WORD.getAndBitwiseOr(next, v >>> 6, 1L << v);
                        claimed += start[v + 1] - start[v];
                    }
                }
            }
            counted.add(claimed);
            explored.add(edges);
        });
    }

    /** Every unvisited vertex takes the first in-neighbour it finds in {@link #front}; {@link #counted} gets how many did. */
    private void bottomUp(int[] depth, int[] parent, int level, int n) {
        long[] front = this.front;
        long[] next = this.next;
        int[] start = in.start();
        int[] sources = in.targets();
        parallel.forEach(n, GRAIN, (from, to) -> {
            long found = 0;
            long edges = 0;
            for (int u = from; u < to; u++) {
                if (depth[u] >= 0) {
                    continue;
                }
                for (int e = start[u], end = start[u + 1]; e < end; e++) {
                    int v = sources[e];
                    edges++;
                    if ((front[v >>> 6] & 1L << v) != 0) {
                        depth[u] = level;
                        parent[u] = v;
                        next[u >>> 6] |= 1L << u; // this chunk's own words
                        found++;
                        break;
                    }
                }
            }
            counted.add(found);
            explored.add(edges);
        });
    }

    /** The set bits of {@code bitmap} into {@code queue}, ascending; returns how many. */
    private static int toQueue(long[] bitmap, int[] queue) {
        int size = 0;
        for (int w = 0; w < bitmap.length; w++) {
            for (long bits = bitmap[w]; bits != 0; bits &= bits - 1) {
                queue[size++] = (w << 6) + Long.numberOfTrailingZeros(bits);
            }
        }
        return size;
    }
}

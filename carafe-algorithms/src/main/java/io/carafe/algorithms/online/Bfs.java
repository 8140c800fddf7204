package io.carafe.algorithms.online;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeIterator;
import io.carafe.graph.VertexLayout;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Breadth-first search over the online graph API: levels (hops) from a source and the
 * BFS tree, reading records of each newly reached vertex ahead in one batch per vertex
 * expanded. An array queue; primitives only.
 */
public final class Bfs {

    /** Depth -1 and parent -1 where unreachable. */
    public record Result(int source, int[] depth, int[] parent, long edgesExplored, long verticesReached, double seconds) {
    }

    private Bfs() {
    }

    public static Result run(CarafeGraph graph, int source) {
        int n = graph.vertexCount();
        if (source < 0 || source >= n) {
            throw new IllegalArgumentException("source " + source + " is not a vertex of '" + graph.name() + "'");
        }
        long start = System.nanoTime();
        int[] depth = new int[n];
        int[] parent = new int[n];
        Arrays.fill(depth, -1);
        Arrays.fill(parent, -1);
        int[] queue = new int[n];
        int head = 0;
        int tail = 0;
        RecordPrefetcher prefetch = new RecordPrefetcher(graph);
        MemorySegment records = graph.vertexRecords().segment();
        EdgeIterator edges = graph.edgeIterator();
        long explored = 0;

        depth[source] = 0;
        queue[tail++] = source;
        prefetch.ensure(source);
        while (head < tail) {
            int u = queue[head++];
            int degree = VertexLayout.degree(records, u);
            edges.reset(VertexLayout.firstEdge(records, u), degree);
            explored += degree;
            for (int v; (v = edges.nextInt()) >= 0; ) {
                if (depth[v] < 0) {
                    depth[v] = depth[u] + 1;
                    parent[v] = u;
                    queue[tail++] = v;
                    prefetch.queue(v);
                }
            }
            prefetch.flush();
        }
        return new Result(source, depth, parent, explored, tail, (System.nanoTime() - start) / 1e9);
    }
}

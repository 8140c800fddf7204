package io.carafe.algorithms.online;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeIterator;
import io.carafe.graph.VertexLayout;
import io.rstore.Mapping;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Dijkstra's single-source shortest paths over the online graph API, reading the graph
 * from RStore as it goes: a settled vertex's edges come in batched reads (targets and
 * weights together), and the records of newly reached vertices are prefetched as one
 * batch per settled vertex. An indexed binary heap with decrease-key; primitives only.
 * Weights must be non-negative (an unweighted graph's edges weigh 1).
 */
public final class Dijkstra {

    /**
     * Distances and the shortest-path tree from {@code source}; distance is
     * {@code +Infinity} and predecessor -1 where unreachable (or not settled before the
     * target was).
     */
    public record Result(int source, int target, double[] distance, int[] predecessor, long edgesExplored,
                         long verticesSettled, double seconds) {

        /** Internal ids from the source to {@code to}, or an empty array if unreachable. */
        public int[] path(int to) {
            if (Double.isInfinite(distance[to])) {
                return new int[0];
            }
            int length = 1;
            for (int v = to; v != source; v = predecessor[v]) {
                length++;
            }
            int[] path = new int[length];
            int v = to;
            for (int i = length - 1; i > 0; i--) {
                path[i] = v;
                v = predecessor[v];
            }
            path[0] = source;
            return path;
        }

        public double edgesPerSecond() {
            return seconds > 0 ? edgesExplored / seconds : 0;
        }
    }

    private Dijkstra() {
    }

    /** Shortest paths from {@code source} to every vertex. */
    public static Result run(CarafeGraph graph, int source) {
        return run(graph, source, -1);
    }

    /** Shortest paths from {@code source}, stopping once {@code target} is settled (-1: settle all). */
    public static Result run(CarafeGraph graph, int source, int target) {
        if (graph.isWeighted() && graph.header().minWeight() < 0) {
            throw new IllegalArgumentException("graph '" + graph.name() + "' has negative weights (smallest " + graph.header().minWeight()
                    + "); Dijkstra needs weights >= 0: import again with ImportOptions.weightMap abs or add:X, or ImportOptions.weights unit or random");
        }
        int n = graph.vertexCount();
        if (source < 0 || source >= n || target >= n) {
            throw new IllegalArgumentException("source " + source + " or target " + target + " is not a vertex of '" + graph.name() + "'");
        }
        long start = System.nanoTime();
        double[] distance = new double[n];
        int[] predecessor = new int[n];
        Arrays.fill(distance, Double.POSITIVE_INFINITY);
        Arrays.fill(predecessor, -1);
        MinHeap heap = new MinHeap(n);
        RecordPrefetcher prefetch = new RecordPrefetcher(graph);
        Mapping records = graph.vertexRecords();
        MemorySegment recordBytes = records.segment();
        EdgeIterator edges = graph.edgeIterator();
        long explored = 0;
        long settled = 0;

        distance[source] = 0;
        heap.push(source, 0);
        prefetch.ensure(source);
        while (!heap.isEmpty()) {
            int u = heap.pop();
            settled++;
            if (u == target) {
                break;
            }
            double du = distance[u];
            int degree = VertexLayout.degree(recordBytes, u);
            edges.reset(VertexLayout.firstEdge(recordBytes, u), degree);
            explored += degree;
            for (int v; (v = edges.nextInt()) >= 0; ) {
                double d = du + edges.weight();
                if (d < distance[v]) {
                    if (distance[v] == Double.POSITIVE_INFINITY) {
                        prefetch.queue(v);
                    }
                    distance[v] = d;
                    predecessor[v] = u;
                    heap.push(v, d);
                }
            }
            prefetch.flush();
        }
        return new Result(source, target, distance, predecessor, explored, settled, (System.nanoTime() - start) / 1e9);
    }
}

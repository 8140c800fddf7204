package io.carafe.algorithms.online;

import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * Independent reference answers, computed straight from a graph file in local memory with
 * the textbook algorithms (a lazy-deletion priority queue of boxed entries, an
 * ArrayDeque): slow and simple on purpose, sharing no code with the RStore versions.
 */
public final class Verifier {
    private Verifier() {
    }

    public static double[] shortestDistances(GraphFile g, int source) {
        int n = (int) g.header().vertexCount();
        double[] distance = new double[n];
        Arrays.fill(distance, Double.POSITIVE_INFINITY);
        distance[source] = 0;
        record Entry(double d, int v) {
        }
        PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> Double.compare(a.d, b.d));
        queue.add(new Entry(0, source));
        while (!queue.isEmpty()) {
            Entry e = queue.poll();
            if (e.d > distance[e.v]) {
                continue;
            }
            long first = VertexLayout.firstEdge(g.vertices(), e.v);
            for (long i = first; i < first + VertexLayout.degree(g.vertices(), e.v); i++) {
                int t = EdgeLayout.target(g.edges(), i);
                double d = e.d + (g.weights() == null ? 1.0 : g.header().weight(g.weights(), i));
                if (d < distance[t]) {
                    distance[t] = d;
                    queue.add(new Entry(d, t));
                }
            }
        }
        return distance;
    }

    public static int[] bfsDepths(GraphFile g, int source) {
        int n = (int) g.header().vertexCount();
        int[] depth = new int[n];
        Arrays.fill(depth, -1);
        depth[source] = 0;
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(source);
        while (!queue.isEmpty()) {
            int u = queue.poll();
            long first = VertexLayout.firstEdge(g.vertices(), u);
            for (long i = first; i < first + VertexLayout.degree(g.vertices(), u); i++) {
                int t = EdgeLayout.target(g.edges(), i);
                if (depth[t] < 0) {
                    depth[t] = depth[u] + 1;
                    queue.add(t);
                }
            }
        }
        return depth;
    }
}

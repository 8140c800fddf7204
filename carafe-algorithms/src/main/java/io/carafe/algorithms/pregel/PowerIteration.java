package io.carafe.algorithms.pregel;

import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;

import java.util.Arrays;

/**
 * Independent reference PageRank: plain power iteration over the graph file in local
 * memory, pushing rank along out-edges array by array. It shares no code with the Pregel
 * engine; its sums run in a different order, so results agree to rounding, not bit for bit.
 */
public final class PowerIteration {
    private PowerIteration() {
    }

    public static double[] pageRank(GraphFile g, double damping, int iterations, boolean dropDangling) {
        int n = (int) g.header().vertexCount();
        double[] rank = new double[n];
        double[] next = new double[n];
        Arrays.fill(rank, 1.0 / n);
        for (int it = 0; it < iterations; it++) {
            double dangling = 0;
            Arrays.fill(next, 0);
            for (int u = 0; u < n; u++) {
                int degree = VertexLayout.degree(g.vertices(), u);
                if (degree == 0) {
                    dangling += rank[u];
                    continue;
                }
                double share = rank[u] / degree;
                long first = VertexLayout.firstEdge(g.vertices(), u);
                for (long e = first; e < first + degree; e++) {
                    next[EdgeLayout.target(g.edges(), e)] += share;
                }
            }
            double base = (1 - damping) / n + (dropDangling ? 0 : damping * dangling / n);
            for (int v = 0; v < n; v++) {
                next[v] = base + damping * next[v];
            }
            double[] swap = rank;
            rank = next;
            next = swap;
        }
        return rank;
    }
}

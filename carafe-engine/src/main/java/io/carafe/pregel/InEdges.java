package io.carafe.pregel;

import io.carafe.graph.GraphPartition;
import io.carafe.graph.SequentialEdgeIterator;
import io.rstore.RStore;

/**
 * The in-edges of one partition's vertices, for programs that read them
 * ({@link VertexProgram#needsInEdges()}): built at job setup by scanning every partition's
 * out-edges, a partition at a time, and keeping those that end here, grouped by target
 * (a counting sort). Sources are internal ids.
 */
final class InEdges {
    private final int[] start;
    private final int[] source;
    private final double[] weight; // null on an unweighted graph

    private InEdges(int[] start, int[] source, double[] weight) {
        this.start = start;
        this.source = source;
        this.weight = weight;
    }

    static InEdges build(RStore rstore, String graph, Partitioning partitioning, int index, boolean weighted) {
        int from = partitioning.start(index);
        int size = partitioning.end(index) - from;
        int[] start = new int[size + 1];
        for (int pass = 0; pass < 2; pass++) { // count, then place
            int[] next = pass == 0 ? null : start.clone();
            int[] sources = pass == 0 ? null : new int[start[size]];
            double[] weights = pass == 1 && weighted ? new double[start[size]] : null;
            for (int j = 0; j < partitioning.partitions(); j++) {
                try (GraphPartition part = GraphPartition.open(rstore, graph, partitioning.start(j), partitioning.end(j))) {
                    SequentialEdgeIterator scan = part.scan();
                    for (int v; (v = scan.nextVertex()) >= 0; ) {
                        for (int t; (t = scan.nextInt()) >= 0; ) {
                            int local = t - from;
                            if (local < 0 || local >= size) {
                                continue;
                            }
                            if (pass == 0) {
                                start[local + 1]++;
                            } else {
                                int at = next[local]++;
                                sources[at] = v;
                                if (weights != null) {
                                    weights[at] = scan.weight();
                                }
                            }
                        }
                    }
                }
            }
            if (pass == 0) {
                long total = 0;
                for (int u = 0; u < size; u++) {
                    total += start[u + 1];
                    if (total > Integer.MAX_VALUE - 8) {
                        throw new IllegalStateException("partition " + index + " has more than 2^31 in-edges; use more workers");
                    }
                    start[u + 1] = (int) total;
                }
            } else {
                return new InEdges(start, sources, weights);
            }
        }
        throw new AssertionError();
    }

    int degree(int local) {
        return start[local + 1] - start[local];
    }

    int first(int local) {
        return start[local];
    }

    int source(int i) {
        return source[i];
    }

    double weight(int i) {
        return weight == null ? 1.0 : weight[i];
    }
}

package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.VertexLayout;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.util.Arrays;

/**
 * Weighted vertex partitioning: vertex v weighs {@code a + b·degree(v)} (the cost of
 * visiting it plus that of reading and messaging along its edges), and the vertex ids are
 * cut into P contiguous ranges of about equal total weight. Partition p is
 * {@code [start(p), start(p+1))}.
 */
public record Partitioning(int[] starts, double vertexWeight, double edgeWeight) {
    private static final long WINDOW_VERTICES = 1 << 17; // 4 MiB of records

    public Partitioning {
        starts = starts.clone();
    }

    /**
     * Partitions graph {@code name} in RStore, reading only its vertex records, a window
     * at a time (the edges are not needed: a record holds the degree).
     */
    public static Partitioning compute(RStore rstore, String name, int partitions, double a, double b) {
        GraphHeader header = CarafeGraph.header(rstore, name);
        long n = header.vertexCount();
        if (partitions < 1 || partitions > Math.max(1, n)) {
            throw new IllegalArgumentException("cannot cut " + n + " vertices into " + partitions + " partitions");
        }
        if (a < 0 || b < 0 || a + b <= 0) {
            throw new IllegalArgumentException("partition weights a + b·degree need a, b >= 0, not both 0");
        }
        double total = a * n + b * header.edgeCount();
        int[] starts = new int[partitions + 1];
        starts[partitions] = (int) n;
        RAddress vertices = rstore.joinNamespace(CarafeGraph.namespace(name, "vertices")).raddress(header.verticesAt());
        double acc = 0;
        int p = 1;
        for (long window = 0; window < n && p < partitions; window += WINDOW_VERTICES) {
            long count = Math.min(WINDOW_VERTICES, n - window);
            try (Mapping m = vertices.map(VertexLayout.offset(window), count * VertexLayout.BYTES, MapFlags.READ_ONLY | MapFlags.PREFETCH)) {
                for (int i = 0; i < count && p < partitions; i++) {
                    int v = (int) (window + i);
                    // cut before v once the weight so far reaches p shares, leaving at least one vertex per partition
                    if (acc >= total * p / partitions && v > starts[p - 1] && n - v >= partitions - p) {
                        starts[p++] = v;
                    }
                    acc += a + b * VertexLayout.degree(m.segment(), i);
                }
            }
        }
        while (p < partitions) { // tiny or skewed graphs: give the tail one vertex each
            starts[p] = (int) Math.max(starts[p - 1] + 1, n - (partitions - p));
            p++;
        }
        return new Partitioning(starts, a, b);
    }

    public int partitions() {
        return starts.length - 1;
    }

    public int start(int p) {
        return starts[p];
    }

    public int end(int p) {
        return starts[p + 1];
    }

    /** The partition holding vertex v: a binary search over the P boundaries. */
    public int partitionOf(int v) {
        int i = Arrays.binarySearch(starts, v);
        return i >= 0 ? Math.min(i, partitions() - 1) : -i - 2;
    }

    @Override
    public int[] starts() {
        return starts.clone();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("weighted partitioning (").append(vertexWeight).append(" + ").append(edgeWeight).append("·degree):");
        for (int p = 0; p < partitions(); p++) {
            s.append(String.format(" [%d, %d)", start(p), end(p)));
        }
        return s.toString();
    }
}

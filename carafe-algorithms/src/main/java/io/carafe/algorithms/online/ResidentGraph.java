package io.carafe.algorithms.online;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import io.rstore.Batch;
import io.rstore.Mapping;

import java.lang.foreign.MemorySegment;

/**
 * A graph's vertex records and edge targets read whole into this process's mappings, once,
 * for kernels that sweep every edge many times over (Afforest, direction-optimizing BFS):
 * the reads are the control path, the kernels then touch only local memory. Edge offsets
 * are copied into an array (their records are 32 bytes apart); targets stay in the mapping.
 * Weights are not read.
 */
public final class ResidentGraph {
    /** Bytes per read: many windows are in flight together. */
    private static final long WINDOW_BYTES = 4L << 20;

    private final CarafeGraph graph;
    private final int vertices;
    private final long[] start;
    private final MemorySegment targets;
    private final MemorySegment records;
    private final double readSeconds;

    private ResidentGraph(CarafeGraph graph, long[] start, MemorySegment targets, MemorySegment records, double readSeconds) {
        this.graph = graph;
        this.vertices = graph.vertexCount();
        this.start = start;
        this.targets = targets;
        this.records = records;
        this.readSeconds = readSeconds;
    }

    /** Reads {@code graph}'s records and targets (what the graph's mappings hold afterwards stays valid while it is open). */
    public static ResidentGraph read(CarafeGraph graph) {
        long began = System.nanoTime();
        int n = graph.vertexCount();
        Batch batch = new Batch();
        readWhole(batch, graph.vertexRecords(), n * VertexLayout.BYTES);
        readWhole(batch, graph.edgeTargets(), graph.edgeCount() * EdgeLayout.TARGET_BYTES);
        if (batch.size() > 0) {
            batch.join();
        }
        MemorySegment records = graph.vertexRecords().segment();
        long[] start = new long[n + 1];
        for (int v = 0; v < n; v++) {
            start[v] = VertexLayout.firstEdge(records, v);
        }
        start[n] = n == 0 ? 0 : start[n - 1] + VertexLayout.degree(records, n - 1);
        if (start[n] != graph.edgeCount()) {
            throw new IllegalStateException("graph '" + graph.name() + "' says " + graph.edgeCount() + " edges, its records " + start[n]);
        }
        return new ResidentGraph(graph, start, graph.edgeTargets().segment(), records, (System.nanoTime() - began) / 1e9);
    }

    private static void readWhole(Batch batch, Mapping mapping, long bytes) {
        for (long at = 0; at < bytes; at += WINDOW_BYTES) {
            batch.read(mapping, at, Math.min(WINDOW_BYTES, bytes - at));
        }
    }

    public CarafeGraph graph() {
        return graph;
    }

    public int vertexCount() {
        return vertices;
    }

    public long edgeCount() {
        return start[vertices];
    }

    /** Seconds the reads took. */
    public double readSeconds() {
        return readSeconds;
    }

    long firstEdge(int v) {
        return start[v];
    }

    long endEdge(int v) {
        return start[v + 1];
    }

    int degree(int v) {
        return (int) (start[v + 1] - start[v]);
    }

    int target(long edge) {
        return EdgeLayout.target(targets, edge);
    }

    public long originalId(int v) {
        return VertexLayout.originalId(records, v);
    }

    /** Edge offsets by vertex, n + 1 of them (not to be changed). */
    long[] offsets() {
        return start;
    }

    MemorySegment targets() {
        return targets;
    }
}

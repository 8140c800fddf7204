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
    private final Adjacency out;
    private Adjacency in; // built when first asked for
    private double inSeconds;
    private final MemorySegment records;
    private final double readSeconds;

    private ResidentGraph(CarafeGraph graph, Adjacency out, MemorySegment records, double readSeconds) {
        this.graph = graph;
        this.vertices = graph.vertexCount();
        this.out = out;
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
        return new ResidentGraph(graph, new Adjacency(start, graph.edgeTargets().segment()), records, (System.nanoTime() - began) / 1e9);
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
        return out.edges();
    }

    /** Seconds the reads took. */
    public double readSeconds() {
        return readSeconds;
    }

    /** Seconds building the in-edges took (0 if they were not built, or the graph stores both directions). */
    public double inEdgeSeconds() {
        return inSeconds;
    }

    public long originalId(int v) {
        return VertexLayout.originalId(records, v);
    }

    Adjacency out() {
        return out;
    }

    /** Builds the in-edges now, if they are not yet, so that a timed kernel does not. */
    public void buildInEdges() {
        in();
    }

    /**
     * The in-edges: the out-edges themselves when the graph stores both directions, else
     * built once (a counting sort by target; the sources of each vertex ascending) into
     * native memory of this process, freed with the last reference to it.
     */
    synchronized Adjacency in() {
        if (in != null) {
            return in;
        }
        if (!graph.isDirected()) {
            in = out;
            return in;
        }
        long began = System.nanoTime();
        long m = out.edges();
        long[] start = new long[vertices + 1];
        for (long e = 0; e < m; e++) {
            start[out.target(e) + 1]++;
        }
        for (int v = 0; v < vertices; v++) {
            start[v + 1] += start[v];
        }
        long[] fill = java.util.Arrays.copyOf(start, vertices);
        MemorySegment sources = java.lang.foreign.Arena.ofAuto().allocate(Math.max(m, 1) * EdgeLayout.TARGET_BYTES, EdgeLayout.TARGET_BYTES);
        for (int v = 0; v < vertices; v++) {
            for (long e = out.first(v), end = out.end(v); e < end; e++) {
                sources.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, fill[out.target(e)]++, v);
            }
        }
        in = new Adjacency(start, sources);
        inSeconds = (System.nanoTime() - began) / 1e9;
        return in;
    }
}

package io.carafe.algorithms.resident;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeLayout;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.InEdgeLists;
import io.carafe.graph.VertexLayout;
import io.rstore.Batch;
import io.rstore.Mapping;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A graph read whole into this process, once, for kernels that sweep its edges many times
 * over on threads of their own (Afforest, direction-optimizing BFS, Δ-stepping): the
 * vertex records and edge targets are read from RStore (4 MiB reads, all in flight) and
 * copied into int arrays (offsets and targets), the control path; the kernels then touch
 * only those arrays. Weights and in-edges (stored with the graph) are read when a kernel first
 * asks for them.
 * Edges are indexed by int: a graph of 2^31 edges or more is refused (the engine's
 * partition workers take it).
 */
public final class ResidentGraph {
    /** Bytes per read: many windows are in flight together. */
    private static final long WINDOW_BYTES = 4L << 20;

    private final CarafeGraph graph;
    private final int vertices;
    private final Adjacency out;
    private Adjacency in;     // built when first asked for
    private double[] weights; // read when first asked for
    private final MemorySegment records;

    private ResidentGraph(CarafeGraph graph, Adjacency out, MemorySegment records) {
        this.graph = graph;
        this.vertices = graph.vertexCount();
        this.out = out;
        this.records = records;
    }

    /** Reads {@code graph}'s records and targets; the records stay in the graph's mapping (original ids), so keep it open. */
    public static ResidentGraph read(CarafeGraph graph) {
        int n = graph.vertexCount();
        long m = graph.edgeCount();
        if (m > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("graph '" + graph.name() + "' has " + m + " edges; the kernels that run in this process index"
                    + " edges by int (up to 2^31): use the Pregel engine (PregelJob), whose partition workers each hold a part");
        }
        Batch batch = new Batch();
        readWhole(batch, graph.vertexRecords(), n * VertexLayout.BYTES);
        readWhole(batch, graph.edgeTargets(), m * EdgeLayout.TARGET_BYTES);
        if (batch.size() > 0) {
            batch.join();
        }
        MemorySegment records = graph.vertexRecords().segment();
        int[] start = new int[n + 1];
        for (int v = 0; v < n; v++) {
            start[v] = (int) VertexLayout.firstEdge(records, v);
        }
        start[n] = n == 0 ? 0 : start[n - 1] + VertexLayout.degree(records, n - 1);
        if (start[n] != m) {
            throw new IllegalStateException("graph '" + graph.name() + "' says " + m + " edges, its records " + start[n]);
        }
        int[] targets = new int[(int) m];
        MemorySegment.copy(graph.edgeTargets().segment(), ValueLayout.JAVA_INT_UNALIGNED, 0, targets, 0, (int) m);
        return new ResidentGraph(graph, new Adjacency(start, targets), records);
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

    public long originalId(int v) {
        return VertexLayout.originalId(records, v);
    }

    Adjacency out() {
        return out;
    }

    /** Edge weights by edge index, read whole when first asked for; null on an unweighted graph (every edge weighs 1). */
    synchronized double[] weights() {
        if (weights == null && graph.isWeighted()) {
            int m = out.edges();
            Batch batch = new Batch();
            GraphHeader header = graph.header();
            readWhole(batch, graph.edgeWeights(), (long) m * header.weightBytes());
            if (batch.size() > 0) {
                batch.join();
            }
            double[] w = new double[m];
            MemorySegment stored = graph.edgeWeights().segment();
            for (int e = 0; e < m; e++) {
                w[e] = header.weight(stored, e);
            }
            weights = w;
        }
        return weights;
    }

    /**
     * The in-edges: the out-edges themselves when the graph stores both directions, else
     * read once from the in-edge sections stored with the graph (each vertex's sources ascending).
     */
    synchronized Adjacency in() {
        if (in == null) {
            if (graph.isDirected()) {
                InEdgeLists lists = InEdgeLists.read(graph.rstore(), graph.name(), 0, vertices, false);
                in = new Adjacency(lists.start(), lists.sources());
            } else {
                in = out;
            }
        }
        return in;
    }
}

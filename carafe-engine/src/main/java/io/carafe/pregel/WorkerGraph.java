package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeOffsets;
import io.carafe.graph.GraphPartition;
import io.carafe.graph.InEdgeLists;
import io.carafe.graph.NeighbourhoodReader;
import io.carafe.graph.SequentialEdgeIterator;
import io.carafe.graph.VertexRecords;
import io.rstore.RStore;

/**
 * The graph as one partition worker sees it: its partition's out-edges, mapped when first
 * needed and scanned in vertex order (a gathering program that only sends, or one that
 * reads neighbourhoods, may never need them); its vertices' in-edges, where the program
 * needs them on a directed graph; and any vertex's neighbourhood, where the program reads
 * them ({@link Declaration#readingNeighbourhoods}).
 */
final class WorkerGraph implements AutoCloseable {
    private final RStore rstore;
    private final String name;
    private final int from;
    private final int size;
    private final boolean directed;
    private final InEdgeLists inEdges;                // null unless needed
    private final NeighbourhoodReader neighbourhoods; // null unless the program reads them
    private SequentialEdgeIterator scan; // the partition's vertices and edges, a window at a time
    private VertexRecords records; // original ids, when asked for before (or without) the partition's edges
    private int[] outDegrees; // by local vertex, when a gather counted them: no scan needed

    WorkerGraph(RStore rstore, JobLayout.Header header, int from, int size, Declaration declared, GatheredArrays shared) {
        this.rstore = rstore;
        this.name = header.graph();
        this.from = from;
        this.size = size;
        this.directed = CarafeGraph.header(rstore, name).directed();
        this.inEdges = declared.readsInEdges() && directed ? InEdgeLists.read(rstore, name, from, from + size, true) : null;
        if (declared.readsNeighbourhoods()) {
            EdgeOffsets offsets = shared.edgeOffsets(() -> EdgeOffsets.read(rstore, name));
            this.neighbourhoods = new NeighbourhoodReader(rstore, name, offsets, header.neighbourhoodCacheBytes());
        } else {
            this.neighbourhoods = null;
        }
    }

    RStore rstore() {
        return rstore;
    }

    boolean directed() {
        return directed;
    }

    int from() {
        return from;
    }

    int size() {
        return size;
    }

    /**
     * The scan positioned at {@code vertex}: partitions are walked in order, so this is a step
     * forward but at a superstep's start. Small enough to be inlined anywhere when the scan is
     * there already (a program asks for its vertex's edges and degree several times).
     */
    SequentialEdgeIterator positioned(int vertex) {
        SequentialEdgeIterator s = scan;
        return s != null && s.vertex() == vertex ? s : moveTo(vertex);
    }

    private SequentialEdgeIterator moveTo(int vertex) {
        if (scan == null) {
            // a window at a time, not the partition whole: a superstep walks its vertices in order
            scan = GraphPartition.scanWindows(rstore, name, from, from + size);
        }
        if (scan.vertex() > vertex) {
            scan.restart();
        }
        while (scan.vertex() < vertex) {
            scan.nextVertex();
        }
        return scan;
    }

    /** The original id of local vertex {@code vertex}: from the scan once it is open, else from the records alone. */
    long originalId(int vertex) {
        if (scan != null) {
            return positioned(vertex).originalId();
        }
        if (records == null) {
            records = new VertexRecords(rstore, name, from, from + size);
        }
        return records.originalId(vertex);
    }

    /** Out-degrees of the local vertices, known already (a gather counts them): asked from them rather than the scan. */
    void knowOutDegrees(int[] byLocalVertex) {
        this.outDegrees = byLocalVertex;
    }

    int outDegree(int vertex) {
        return outDegrees != null ? outDegrees[vertex - from] : positioned(vertex).degree();
    }

    /** The in-edges of the local vertices, or an error naming {@code what} needs them. */
    InEdgeLists inEdges(String what) {
        if (inEdges == null) {
            throw new IllegalStateException(what + " on a directed graph needs a program that declares Declaration.readingInEdges()");
        }
        return inEdges;
    }

    /** The in-edges of the local vertices; null when the program does not need them or the graph is undirected. */
    InEdgeLists inEdgesOrNull() {
        return inEdges;
    }

    /** The reader of any vertex's neighbourhood, once the call {@code what} about {@code vertex} is known to be allowed. */
    NeighbourhoodReader neighbourhoods(String what, int vertex, long vertexCount) {
        if (neighbourhoods == null) {
            throw new IllegalStateException(what + "(vertex) needs a program that declares Declaration.readingNeighbourhoods()");
        }
        requireVertex(what, vertex, vertexCount);
        return neighbourhoods;
    }

    /** Refuses a call about a vertex that the graph does not have. */
    static void requireVertex(String what, int vertex, long vertexCount) {
        if (vertex < 0 || vertex >= vertexCount) {
            throw new IllegalArgumentException(what + "(" + vertex + "): no such vertex; internal ids run from 0 to " + (vertexCount - 1));
        }
    }

    @Override
    public void close() {
        if (neighbourhoods != null) {
            neighbourhoods.close();
        }
        if (records != null) {
            records.close();
        }
        if (scan != null) {
            scan.close();
        }
    }
}

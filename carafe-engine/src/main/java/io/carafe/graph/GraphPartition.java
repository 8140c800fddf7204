package io.carafe.graph;

import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.lang.foreign.MemorySegment;

/**
 * A contiguous range of a graph's vertices with their out-edges, mapped on their own: what
 * a partition worker needs, and no more local memory than its share of the graph.
 */
public final class GraphPartition implements AutoCloseable {
    private final GraphHeader header;
    private final int from;
    private final int to;
    private final long firstEdge;
    private final long edgeCount;
    private final Mapping records;
    private final Mapping targets;
    private final Mapping weights;

    private GraphPartition(GraphHeader header, int from, int to, long firstEdge, long edgeCount, Mapping records, Mapping targets, Mapping weights) {
        this.header = header;
        this.from = from;
        this.to = to;
        this.firstEdge = firstEdge;
        this.edgeCount = edgeCount;
        this.records = records;
        this.targets = targets;
        this.weights = weights;
    }

    /** Maps vertices {@code [from, to)} of graph {@code name} and their edges. */
    public static GraphPartition open(RStore rstore, String name, int from, int to) {
        GraphHeader header = CarafeGraph.readHeader(rstore, name);
        if (from < 0 || to > header.vertexCount() || from >= to) {
            throw new IndexOutOfBoundsException("partition [" + from + ", " + to + ") is not a non-empty range of 0.." + header.vertexCount());
        }
        RAddress vertices = rstore.joinNamespace(CarafeGraph.namespace(name, "vertices")).raddress(header.verticesAt());
        Mapping records = vertices.map(VertexLayout.offset(from), (to - from) * VertexLayout.BYTES, MapFlags.READ_ONLY);
        try {
            // the first edge of the range and the end of its last vertex's list
            records.read(0, VertexLayout.BYTES);
            records.read(VertexLayout.offset(to - 1 - from), VertexLayout.BYTES);
            MemorySegment r = records.segment();
            long first = VertexLayout.firstEdge(r, 0);
            long end = VertexLayout.firstEdge(r, to - 1 - from) + VertexLayout.degree(r, to - 1 - from);
            long count = end - first;
            Mapping t = mapEdges(rstore, name, "edges", header.edgesAt(), first, count, EdgeLayout.TARGET_BYTES);
            Mapping w = header.weighted() ? mapEdges(rstore, name, "weights", header.weightsAt(), first, count, header.weightBytes()) : null;
            return new GraphPartition(header, from, to, first, count, records, t, w);
        } catch (RuntimeException e) {
            records.close();
            throw e;
        }
    }

    /**
     * A scan of vertices {@code [from, to)} of graph {@code name} and their edges that maps a
     * window of them at a time ({@link SequentialEdgeIterator#windows}): what a partition
     * worker that walks its vertices in order needs, in {@link SequentialEdgeIterator#WINDOW_BYTES}
     * of records and of edges (and of weights) rather than its whole share of the graph.
     */
    public static SequentialEdgeIterator scanWindows(RStore rstore, String name, int from, int to) {
        return scanWindows(rstore, name, from, to, SequentialEdgeIterator.WINDOW_BYTES, true);
    }

    /**
     * With windows of {@code windowBytes}: tests see many windows on a small graph; {@code
     * direct} false maps every window, as a client that reaches no server's memory does.
     */
    static SequentialEdgeIterator scanWindows(RStore rstore, String name, int from, int to, long windowBytes, boolean direct) {
        GraphHeader header = CarafeGraph.readHeader(rstore, name);
        if (from < 0 || to > header.vertexCount() || from >= to) {
            throw new IndexOutOfBoundsException("partition [" + from + ", " + to + ") is not a non-empty range of 0.." + header.vertexCount());
        }
        RAddress vertices = rstore.joinNamespace(CarafeGraph.namespace(name, "vertices")).raddress(header.verticesAt());
        long lastEdge;
        try (Mapping last = vertices.map(VertexLayout.offset(to - 1), VertexLayout.BYTES, MapFlags.READ_ONLY | MapFlags.PREFETCH)) {
            lastEdge = VertexLayout.firstEdge(last.segment(), 0) + VertexLayout.degree(last.segment(), 0);
        }
        RAddress targets = rstore.joinNamespace(CarafeGraph.namespace(name, "edges")).raddress(header.edgesAt());
        RAddress weights = header.weighted() ? rstore.joinNamespace(CarafeGraph.namespace(name, "weights")).raddress(header.weightsAt()) : null;
        return SequentialEdgeIterator.windows(vertices, targets, weights, header.weightBytes(), from, to, lastEdge, windowBytes, direct);
    }

    /**
     * Maps edges {@code [first, first + count)} of an edge array. A mapping cannot be empty,
     * so a partition without edges maps the array's first bytes instead; its iterator never
     * reads them.
     */
    private static Mapping mapEdges(RStore rstore, String name, String part, long address, long first, long count, long bytesPerEdge) {
        RAddress segment = rstore.joinNamespace(CarafeGraph.namespace(name, part)).raddress(address);
        if (count == 0) {
            return segment.map(0, Math.min(bytesPerEdge, segment.length()), MapFlags.READ_ONLY);
        }
        return segment.map(first * bytesPerEdge, count * bytesPerEdge, MapFlags.READ_ONLY);
    }

    public GraphHeader header() {
        return header;
    }

    public int from() {
        return from;
    }

    public int to() {
        return to;
    }

    public long edgeCount() {
        return edgeCount;
    }

    /**
     * Adds to {@code batch} the read of the partition's edge targets {@code [first, first + count)},
     * counted from the partition's first edge: for a worker that reaches a few vertices'
     * edges at random rather than scanning them all.
     */
    public void readTargets(Batch batch, long first, long count) {
        batch.read(targets, first * EdgeLayout.TARGET_BYTES, count * EdgeLayout.TARGET_BYTES);
    }

    /** The target of the partition's edge {@code e} (from its first edge), once read by {@link #readTargets}. */
    public int target(long e) {
        return EdgeLayout.target(targets.segment(), e);
    }

    /** As {@link #readTargets}, for the edges' weights; nothing on an unweighted graph. */
    public void readWeights(Batch batch, long first, long count) {
        if (weights != null) {
            batch.read(weights, first * header.weightBytes(), count * header.weightBytes());
        }
    }

    /** The weight of the partition's edge {@code e}, once read by {@link #readWeights}: 1 on an unweighted graph. */
    public double weight(long e) {
        return weights == null ? 1 : header.weight(weights.segment(), e);
    }

    /**
     * A sequential iterator over the partition's vertices and edges: it reads from RStore as
     * it goes, each window once (a job's graph does not change), however often it restarts.
     */
    public SequentialEdgeIterator scan() {
        return scan(SequentialEdgeIterator.WINDOW_BYTES);
    }

    SequentialEdgeIterator scan(long windowBytes) {
        return new SequentialEdgeIterator(records, from, targets, weights, header.weightBytes(), firstEdge, from, to, header.vertexCount(), true,
                windowBytes);
    }

    @Override
    public void close() {
        records.close();
        targets.close();
        if (weights != null) {
            weights.close();
        }
    }
}

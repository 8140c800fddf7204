package io.carafe.graph;

import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;

/**
 * The original ids of a range of vertices, for a worker that needs them without its edges
 * (a label that starts as the vertex's own id): the range's records, a window at a time in
 * one window of local memory, moved as vertices are asked for (a superstep walks them in
 * order). It replaces mapping the partition's edges to learn its ids, which label
 * propagation never reads (what that held: docs/measure/notebook.md).
 */
public final class VertexRecords implements AutoCloseable {
    /** Records a window holds: 4 MiB of them. */
    static final int WINDOW_RECORDS = (int) (SequentialEdgeIterator.WINDOW_BYTES / VertexLayout.BYTES);

    private final RAddress vertices;
    private final int from;
    private final int to;
    private Mapping window;
    private int windowFrom;
    private int windowTo; // empty until the first call

    /** Vertices {@code [from, to)} of graph {@code graph}. */
    public VertexRecords(RStore rstore, String graph, int from, int to) {
        GraphHeader header = CarafeGraph.readHeader(rstore, graph);
        if (from < 0 || to > header.vertexCount() || from > to) {
            throw new IndexOutOfBoundsException("vertex range [" + from + ", " + to + ") is not within 0.." + header.vertexCount());
        }
        this.vertices = rstore.joinNamespace(CarafeGraph.namespace(graph, GraphHeader.Section.VERTICES.part())).raddress(header.verticesAt());
        this.from = from;
        this.to = to;
    }

    /** The id vertex {@code vertex} (of the range) had in the imported file. */
    public long originalId(int vertex) {
        if (vertex < windowFrom || vertex >= windowTo) {
            move(vertex);
        }
        return VertexLayout.originalId(window.segment(), vertex - windowFrom);
    }

    private void move(int vertex) {
        if (vertex < from || vertex >= to) {
            throw new IndexOutOfBoundsException("vertex " + vertex + " is not in [" + from + ", " + to + ")");
        }
        close();
        windowFrom = vertex - (vertex - from) % WINDOW_RECORDS;
        windowTo = Math.min(to, windowFrom + WINDOW_RECORDS);
        window = vertices.map(VertexLayout.offset(windowFrom), (long) (windowTo - windowFrom) * VertexLayout.BYTES, MapFlags.READ_ONLY | MapFlags.PREFETCH);
    }

    @Override
    public void close() {
        if (window != null) {
            window.close();
            window = null;
            windowTo = windowFrom; // empty: the next call maps again
        }
    }
}

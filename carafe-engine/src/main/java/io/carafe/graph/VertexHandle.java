package io.carafe.graph;

import java.lang.foreign.MemorySegment;

/**
 * A vertex of a {@link CarafeGraph}: its record, read with one 32-byte one-sided read.
 * A flyweight: {@link #moveTo(int)} re-points it at another vertex without allocating,
 * and {@link #edges()} returns the handle's own reusable iterator.
 */
public final class VertexHandle implements AutoCloseable {
    private final CarafeGraph graph;
    private final MemorySegment records;
    private final EdgeIterator edges;
    private int id = -1;
    private boolean closed;

    VertexHandle(CarafeGraph graph) {
        this.graph = graph;
        this.records = graph.vertexRecords().segment();
        this.edges = new EdgeIterator(graph);
    }

    /** Reads vertex {@code id}'s record into this handle. */
    public VertexHandle moveTo(int id) {
        if (closed) {
            throw new IllegalStateException("this vertex handle was closed");
        }
        graph.checkVertex(id);
        graph.vertexRecords().read(VertexLayout.offset(id), VertexLayout.BYTES);
        this.id = id;
        return this;
    }

    public int id() {
        return id;
    }

    public long originalId() {
        return VertexLayout.originalId(records, id);
    }

    public int degree() {
        return VertexLayout.degree(records, id);
    }

    public long firstEdge() {
        return VertexLayout.firstEdge(records, id);
    }

    /** The vertex's out-edges; the same iterator object on every call, restarted. */
    public EdgeIterator edges() {
        return edges.reset(firstEdge(), degree());
    }

    @Override
    public void close() {
        closed = true;
    }
}

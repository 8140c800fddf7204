package io.carafe.algorithms.online;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.VertexLayout;
import io.rstore.Batch;
import io.rstore.Mapping;

/**
 * Reads vertex records ahead of use: a traversal queues the records of vertices it just
 * discovered and posts them as one batch, so many small reads are in flight together
 * instead of one round trip per vertex when it is reached. Each record is read once.
 */
final class RecordPrefetcher {
    private final Mapping records;
    private final long[] loaded;
    private final Batch batch = new Batch();

    RecordPrefetcher(CarafeGraph graph) {
        this.records = graph.vertexRecords();
        this.loaded = new long[(graph.vertexCount() + 63) >>> 6];
    }

    /** Queues vertex {@code v}'s record unless it was read already. */
    void queue(int v) {
        long bit = 1L << v;
        int word = v >>> 6;
        if ((loaded[word] & bit) == 0) {
            loaded[word] |= bit;
            batch.read(records, VertexLayout.offset(v), VertexLayout.BYTES);
        }
    }

    /** Posts what was queued and waits for it. */
    void flush() {
        if (batch.size() > 0) {
            batch.join();
        }
    }

    /** Makes sure {@code v}'s record is local. */
    void ensure(int v) {
        queue(v);
        flush();
    }
}

package io.rstore.protocol;

import io.rstore.ErrorCode;

/** What the master asks of a memory server: chunks of DRAM, registered and keyed. */
public interface ChunkService {

    /** A chunk's registration: its id on the server and its current key. */
    record Grant(int chunkId, long key) {
    }

    /** Allocates and registers a zeroed chunk; OUT_OF_MEMORY past the server's capacity. */
    Grant allocateChunk(long bytes);

    /**
     * Registers {@code bytes} of {@code file} from {@code offset} as a chunk, mapped
     * privately: reads see the file, writes stay in the chunk (copy-on-write). Released,
     * never recycled. Only a server in the caller's process can reach the caller's files:
     * UNSUPPORTED by default, and over the network.
     */
    default Grant mapFile(String file, long offset, long bytes) {
        throw ErrorCode.UNSUPPORTED.exception("this memory server cannot map files");
    }

    /** Gives the chunk a new key (old credentials stop working) and zeroes it, for reuse by another namespace. */
    long recycle(int chunkId);

    /** Zeroes part of a chunk (AllocFlags.ZERO). */
    void zero(int chunkId, long offset, long length);

    /**
     * Faults in part of a chunk, what an alloc is about to hand out, without changing a byte:
     * a chunk's memory is taken from the system as segments are placed in it, not whole when
     * the chunk is allocated, and still never on the data path. A no-op where chunks are
     * in memory whole (files, registered memory).
     */
    default void populate(int chunkId, long offset, long length) {
    }

    /**
     * Makes {@code [offset, offset + length)} of the chunk durable (msync of its file in the
     * persistence directory); UNSUPPORTED on a server that keeps its chunks in memory only.
     */
    default void persist(int chunkId, long offset, long length) {
        throw ErrorCode.UNSUPPORTED.exception("this memory server keeps its chunks in memory only (no rstore.persistence.dir): nothing to make durable");
    }

    /** Deregisters the chunk and frees its memory. */
    void releaseChunk(int chunkId);

    long capacityBytes();

    /** DRAM in chunks now; for a remote server, as of the last call that told. */
    long usedBytes();

    /** Asks the server whether it is serving (and refreshes {@link #usedBytes()}); SERVER_UNAVAILABLE if not. */
    default void ping() {
    }
}

package io.carafe.graph;

import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;

import java.lang.foreign.MemorySegment;

/**
 * One array of a graph in RStore as its chunks' own bytes: where the client reaches a
 * chunk's server memory (in-process servers, shm), the array's part in that chunk is mapped
 * {@link MapFlags#DIRECT} the first time it is asked for and kept until {@link #close}.
 * Such a mapping reads, copies and holds nothing, so keeping it costs nothing, while mapping
 * it again costs two calls to the master (a map and an unmap). Where the client does not
 * reach a chunk that way (tcp, RDMA, another host's servers), {@link #direct} says so with
 * null, asking the master once, and the caller reads that part as it would have.
 */
final class DirectChunks implements AutoCloseable {
    private final RAddress array;
    private final long chunkBytes; // the namespace's chunk size, a power of two
    private final int chunkShift;  // its log2: a byte's chunk by a shift
    private final long lead;       // where the array starts within its first chunk
    private final Mapping[] mapped;
    private final boolean[] remote; // chunk c is not the client's to reach directly: asked once

    DirectChunks(RAddress array) {
        this.array = array;
        this.chunkBytes = array.chunkSizeBytes();
        this.chunkShift = Long.numberOfTrailingZeros(chunkBytes);
        this.lead = array.address() & (chunkBytes - 1);
        int count = (int) ((lead + array.length() + chunkBytes - 1) >>> chunkShift);
        this.mapped = new Mapping[count];
        this.remote = new boolean[count];
    }

    /** The chunk that holds the array's byte {@code at}. */
    int chunkOf(long at) {
        return (int) ((lead + at) >>> chunkShift);
    }

    /** Where the array's part in chunk {@code c} starts, in the array's bytes. */
    long chunkStart(int c) {
        return Math.max(0, c * chunkBytes - lead);
    }

    /** Where it ends (exclusive), in the array's bytes. */
    long chunkEnd(int c) {
        return Math.min(array.length(), (c + 1) * chunkBytes - lead);
    }

    /**
     * The array's part in chunk {@code c} as the chunk's own bytes (its byte 0 is the array's
     * byte {@link #chunkStart}), mapped the first time; null if the client does not reach
     * that chunk's memory directly.
     */
    MemorySegment direct(int c) {
        Mapping m = mapped[c];
        if (m != null) {
            return m.segment();
        }
        if (remote[c]) {
            return null;
        }
        long start = chunkStart(c);
        // a few bytes first: mapped other than directly, the whole part would be local memory of its size
        try (Mapping probe = array.map(start, Math.min(8, chunkEnd(c) - start), MapFlags.READ_ONLY | MapFlags.DIRECT)) {
            if (!probe.isDirect()) {
                remote[c] = true;
                return null;
            }
        }
        m = array.map(start, chunkEnd(c) - start, MapFlags.READ_ONLY | MapFlags.DIRECT);
        mapped[c] = m;
        return m.segment();
    }

    /** Maps now, on the control path, the chunks that hold the array's bytes {@code [from, to)} and that the client reaches directly. */
    void mapAhead(long from, long to) {
        for (int c = chunkOf(from); from < to && c <= chunkOf(to - 1); c++) {
            direct(c);
        }
    }

    /** Whether the client reaches every chunk of the array directly (each mapped, and kept, to find out). */
    boolean reachesAll() {
        for (int c = 0; c < mapped.length; c++) {
            if (direct(c) == null) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        for (int c = 0; c < mapped.length; c++) {
            if (mapped[c] != null) {
                mapped[c].close();
                mapped[c] = null;
            }
        }
    }
}

package io.rstore.server;

import io.rstore.ErrorCode;
import io.rstore.protocol.ChunkService;
import io.rstore.transport.RegionTable;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A memory server: DRAM chunks, allocated on the master's request and registered in a
 * {@link RegionTable}, which is all a transport needs to serve one-sided operations.
 */
public final class MemoryServer implements ChunkService, AutoCloseable {
    private final long capacityBytes;
    private final RegionTable regions = new RegionTable();
    private final Int2ObjectOpenHashMap<Arena> arenas = new Int2ObjectOpenHashMap<>();
    private long usedBytes;
    private boolean closed;

    public MemoryServer(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    public RegionTable regions() {
        return regions;
    }

    @Override
    public synchronized Grant allocateChunk(long bytes) {
        if (closed) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("memory server is stopped");
        }
        if (usedBytes + bytes > capacityBytes) {
            throw ErrorCode.OUT_OF_MEMORY.exception("memory server has " + (capacityBytes - usedBytes) + " of "
                    + capacityBytes + " bytes free, asked for " + bytes);
        }
        Arena arena = Arena.ofShared();
        MemorySegment memory;
        try {
            memory = io.rstore.memory.NativeMemory.allocate(arena, bytes);
        } catch (OutOfMemoryError e) {
            arena.close();
            throw ErrorCode.OUT_OF_MEMORY.exception("memory server could not allocate a chunk of " + bytes + " bytes: " + e.getMessage());
        }
        int id = regions.register(memory);
        arenas.put(id, arena);
        usedBytes += bytes;
        return new Grant(id, regions.key(id));
    }

    @Override
    public synchronized int recycle(int chunkId) {
        int key = regions.rekey(chunkId); // first, so no stale writer lands after the zeroing
        regions.memory(chunkId).fill((byte) 0);
        return key;
    }

    @Override
    public synchronized void zero(int chunkId, long offset, long length) {
        regions.memory(chunkId).asSlice(offset, length).fill((byte) 0);
    }

    @Override
    public synchronized void releaseChunk(int chunkId) {
        long bytes = regions.memory(chunkId).byteSize();
        regions.deregister(chunkId);
        arenas.remove(chunkId).close();
        usedBytes -= bytes;
    }

    @Override
    public long capacityBytes() {
        return capacityBytes;
    }

    @Override
    public synchronized long usedBytes() {
        return usedBytes;
    }

    /** Stops serving: every one-sided operation fails with SERVER_UNAVAILABLE from now on. */
    public void stop() {
        regions.setOnline(false);
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            stop();
            arenas.values().forEach(Arena::close);
            arenas.clear();
        }
    }
}

package io.rstore.server;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.config.Logs;
import io.rstore.memory.NativeMemory;
import io.rstore.protocol.ChunkService;
import io.rstore.protocol.ServerRegistration;
import io.rstore.transport.RegionTable;
import io.rstore.transport.rdma.RdmaDevice;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.nio.file.ReadOnlyFileSystemException;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A memory server: DRAM chunks, allocated on the master's request and registered in a
 * {@link RegionTable}, which is all a transport needs to serve one-sided operations.
 * With {@link ShmChunkFiles} the chunks are files that clients on this host map too; with
 * {@link ShmChunkFiles#persistent} files they outlive the process: a server started on the
 * same directory holds them again, and {@link #persist} flushes them to the disk.
 */
public final class MemoryServer implements ChunkService, AutoCloseable {
    private final long capacityBytes;
    private final ShmChunkFiles files; // null: anonymous memory, reachable through this process only
    private final RegionTable regions = new RegionTable();
    private final Int2ObjectOpenHashMap<Arena> arenas = new Int2ObjectOpenHashMap<>();
    private RdmaChunks rdma;   // null: not on an RDMA device
    private long usedBytes;
    private boolean closed;
    private volatile boolean stopped;

    public MemoryServer(long capacityBytes) {
        this(capacityBytes, null);
    }

    public MemoryServer(long capacityBytes, ShmChunkFiles files) {
        this.capacityBytes = capacityBytes;
        this.files = files;
        if (files != null && files.persistent()) {
            restore();
        }
    }

    /** Holds again the chunks a persistence directory kept, each at the size its file has. */
    private void restore() {
        for (ShmChunkFiles.Kept kept : files.kept()) {
            Arena arena = Arena.ofShared();
            try {
                MemorySegment memory = kept.bytes() == 0 ? MemorySegment.NULL : files.map(arena, kept);
                regions.registerAt(kept.id(), kept.key(), memory);
            } catch (RuntimeException e) {
                arena.close();
                throw e;
            }
            arenas.put(kept.id(), arena);
            usedBytes += kept.bytes();
        }
        if (usedBytes > capacityBytes) {
            throw ErrorCode.INVALID_ARGUMENT.exception("the persistence directory holds " + usedBytes + " bytes of chunks, more than this"
                    + " server's capacity of " + capacityBytes + "; start it with at least that capacity");
        }
    }

    /** Whether it has stopped serving ({@link #stop}, {@link #close}): then it does not rejoin a master either. */
    public boolean stopped() {
        return stopped;
    }

    /** Whether its chunks outlive the process (a persistence directory). */
    public boolean durable() {
        return files != null && files.persistent();
    }

    /** Who it is across restarts (kept in its persistence directory), or empty. */
    public String identity() {
        return files == null ? "" : files.identity();
    }

    /** Where clients on this host find the chunk files, or empty. */
    public String shmLocation() {
        return files == null ? "" : files.location();
    }

    public RegionTable regions() {
        return regions;
    }

    /**
     * Puts the chunks on an RDMA device (those to come, and any there are), listening for
     * clients' queue pairs at {@code bind}; returns the address clients are told.
     */
    public synchronized String enableRdma(RdmaDevice device, InetSocketAddress bind, String advertiseHost) {
        rdma = new RdmaChunks(device, regions, bind, advertiseHost);
        for (int id : arenas.keySet()) {
            rdma.registered(id, regions.memory(id));
        }
        return rdma.address();
    }

    /** Where clients reach the chunks over RDMA, or empty. */
    public synchronized String rdmaAddress() {
        return rdma == null ? "" : rdma.address();
    }

    @Override
    public synchronized Grant allocateChunk(long bytes) {
        checkRoom(bytes);
        Arena arena = Arena.ofShared();
        ShmChunkFiles.ChunkFile file = null;
        MemorySegment memory;
        try {
            if (files != null) {
                file = files.create(arena, bytes);
                memory = file.memory();
            } else if (rdma != null) {
                memory = NativeMemory.allocate(arena, bytes); // registered memory is pinned, so resident, whole
            } else {
                memory = NativeMemory.reserve(arena, bytes); // faulted in as the master places segments in it (populate)
            }
        } catch (OutOfMemoryError | RuntimeException e) {
            arena.close();
            if (e instanceof RStoreException r && r.code() == ErrorCode.NO_SPACE) {
                Logs.get("rstore server").warn(r.getMessage());
                throw r;
            }
            throw ErrorCode.OUT_OF_MEMORY.exception("memory server could not allocate a chunk of " + bytes + " bytes: " + e.getMessage());
        }
        int id = register(arena, memory);
        if (file != null) {
            files.publish(file, id, regions.key(id));
        }
        return new Grant(id, regions.key(id));
    }

    private void checkRoom(long bytes) {
        if (closed) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("memory server is stopped");
        }
        if (usedBytes + bytes > capacityBytes) {
            throw ErrorCode.OUT_OF_MEMORY.exception("memory server has " + (capacityBytes - usedBytes) + " of "
                    + capacityBytes + " bytes free, asked for " + bytes);
        }
    }

    /** A new chunk on {@code memory}, which lives as long as {@code arena}: registered, counted, and on the RDMA device if there is one. */
    private int register(Arena arena, MemorySegment memory) {
        int id = regions.register(memory);
        if (rdma != null) {
            try {
                rdma.registered(id, memory);
            } catch (RuntimeException e) {
                regions.deregister(id);
                throw e;
            }
        }
        arenas.put(id, arena);
        usedBytes += memory.byteSize();
        return id;
    }

    @Override
    public synchronized Grant mapFile(String path, long offset, long bytes) {
        if (files != null) {
            throw ErrorCode.UNSUPPORTED.exception("this memory server's chunks are shared-memory files that clients map; it cannot lend a file's pages");
        }
        checkRoom(bytes);
        Arena arena = Arena.ofShared();
        MemorySegment memory;
        // a private mapping needs a channel open for writing too; nothing is ever written to the file
        try (FileChannel channel = FileChannel.open(Path.of(path), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (offset < 0 || bytes <= 0 || offset > channel.size() - bytes) {
                throw ErrorCode.INVALID_ARGUMENT.exception("[" + offset + ", " + offset + " + " + bytes + ") is not within " + path
                        + " (" + channel.size() + " bytes)");
            }
            memory = channel.map(FileChannel.MapMode.PRIVATE, offset, bytes, arena);
        } catch (AccessDeniedException | ReadOnlyFileSystemException e) {
            arena.close();
            throw ErrorCode.UNSUPPORTED.exception("cannot map " + path + " privately (not writable here): " + e.getMessage());
        } catch (IOException e) {
            arena.close();
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot map " + path + ": " + e);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        int id;
        try {
            id = register(arena, memory);
        } catch (RStoreException e) {
            arena.close();
            // e.g. a range ending inside the file's last page: the device cannot pin past the end of a file
            throw ErrorCode.UNSUPPORTED.exception("the RDMA device cannot register " + path + "'s pages (" + e.detail() + "); the client copies instead");
        }
        return new Grant(id, regions.key(id));
    }

    @Override
    public synchronized long recycle(int chunkId) {
        if (files != null) {
            // a new file, not the old one zeroed: clients that mapped the old file keep the old pages, never the next tenant's
            Arena arena = Arena.ofShared();
            ShmChunkFiles.ChunkFile file = files.create(arena, regions.memory(chunkId).byteSize());
            long key = regions.replace(chunkId, file.memory());
            files.publish(file, chunkId, key);
            if (rdma != null) {
                rdma.registered(chunkId, file.memory());
            }
            arenas.put(chunkId, arena).close();
            return key;
        }
        long key = regions.rekey(chunkId); // first, so no stale writer lands after the zeroing
        MemorySegment memory = regions.memory(chunkId);
        if (rdma != null) {
            rdma.registered(chunkId, memory); // a new region: the old rkey stops working too
            memory.fill((byte) 0);            // registered memory stays pinned: zeroed in place
        } else if (memory.isMapped() || !NativeMemory.discard(memory)) {
            memory.fill((byte) 0);
        } // else its pages went back to the kernel: zero, and resident again only as segments land in it (populate)
        return key;
    }

    @Override
    public synchronized void zero(int chunkId, long offset, long length) {
        regions.memory(chunkId).asSlice(offset, length).fill((byte) 0);
    }

    /** Faults in a range the master is handing out (a chunk is reserved, not populated, when allocated); kernels before 5.14 fault it on first use. */
    @Override
    public synchronized void populate(int chunkId, long offset, long length) {
        if (!regions.holds(chunkId)) {
            throw ErrorCode.INVALID_ADDRESS.exception("this memory server holds no chunk " + chunkId);
        }
        MemorySegment memory = regions.memory(chunkId);
        if (offset < 0 || length <= 0 || length > memory.byteSize() - offset) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("[" + offset + ", " + offset + " + " + length + ") is not within chunk " + chunkId
                    + " (" + memory.byteSize() + " bytes)");
        }
        if (files == null && !memory.isMapped()) {
            NativeMemory.populate(memory.asSlice(offset, length));
        }
    }

    @Override
    public void persist(int chunkId, long offset, long length) {
        MemorySegment memory;
        synchronized (this) {
            if (!durable()) {
                throw ErrorCode.UNSUPPORTED.exception("this memory server keeps its chunks in memory only (no rstore.server.persistence.dir)");
            }
            if (!regions.holds(chunkId)) {
                throw ErrorCode.INVALID_ADDRESS.exception("this memory server holds no chunk " + chunkId);
            }
            memory = regions.memory(chunkId);
        }
        if (offset < 0 || length <= 0 || length > memory.byteSize() - offset) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("[" + offset + ", " + offset + " + " + length + ") is not within chunk " + chunkId
                    + " (" + memory.byteSize() + " bytes)");
        }
        try {
            memory.asSlice(offset, length).force(); // msync(MS_SYNC), outside the lock: as slow as the disk
        } catch (IllegalStateException e) {
            throw ErrorCode.INVALID_ADDRESS.exception("chunk " + chunkId + " was released while being persisted");
        } catch (UncheckedIOException e) {
            throw ErrorCode.UNKNOWN.exception("cannot flush chunk " + chunkId + " to its file: " + e.getMessage());
        }
    }

    @Override
    public synchronized void releaseChunk(int chunkId) {
        long bytes = regions.memory(chunkId).byteSize();
        regions.deregister(chunkId);
        if (rdma != null) {
            rdma.released(chunkId);
        }
        if (files != null) {
            files.remove(chunkId);
        }
        arenas.remove(chunkId).close();
        usedBytes -= bytes;
    }

    /** The ids of the chunks this server holds. */
    public synchronized int[] chunkIds() {
        return arenas.keySet().toIntArray();
    }

    /** The chunks this server holds: id, key, bytes. */
    public synchronized List<ServerRegistration.HeldChunk> chunks() {
        List<ServerRegistration.HeldChunk> held = new ArrayList<>(arenas.size());
        for (int id : arenas.keySet()) {
            held.add(new ServerRegistration.HeldChunk(id, regions.key(id), regions.memory(id).byteSize()));
        }
        return held;
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
    public synchronized void stop() {
        stopped = true;
        regions.setOnline(false);
        if (rdma != null) {
            rdma.close();
        }
        if (files != null) {
            files.stopBeating();
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            stop();
            arenas.values().forEach(Arena::close);
            arenas.clear();
            if (files != null) {
                files.close();
            }
        }
    }
}

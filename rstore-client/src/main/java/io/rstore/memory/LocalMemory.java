package io.rstore.memory;

import io.rstore.ErrorCode;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A client's RDMA-ready local memory: arenas split by a buddy allocator. A block's pages
 * are faulted in when it is handed out, so an arena's unused rest costs nothing (until an
 * RDMA registration pins it). Freed blocks stay in the arenas as a cache for the next
 * mapping; when more than {@code cacheBytes} sit unused, wholly unused arenas are given
 * back. A block larger than an arena gets memory of its own, as large as asked (whole
 * pages), given back when it is freed: in a buddy arena it would be rounded to a power of
 * two, so a 1.1 GB mapping of a graph's edges held 2 GiB.
 * Each arena is registered with the transport's devices once, when it is made (RDMA's
 * memory registration), and deregistered when it is given back; a block carries its
 * arena's local key, so the data path looks nothing up. Thread-safe; used on the control
 * path only (map and unmap).
 */
public final class LocalMemory implements AutoCloseable {

    /** Registers local memory with whatever moves bytes out of it (an RDMA device's memory regions). */
    public interface Registrar {
        /** Registers {@code memory}; returns the key a transfer from or into it names. */
        int register(MemorySegment memory);

        /** Lets go of what {@link #register} returned {@code key} for; the memory is about to be freed. */
        void deregister(int key);

        /** For transports that move bytes without registered memory. */
        Registrar NONE = new Registrar() {
            @Override
            public int register(MemorySegment memory) {
                return 0;
            }

            @Override
            public void deregister(int key) {
            }
        };
    }

    /** A block handed out: its memory and what is needed to give it back. */
    public static final class Block {
        private final BuddyArena arena; // null: the block has memory of its own
        private final long offset;
        private final int order;
        private final MemorySegment segment;
        private final Arena own;
        private final int ownKey;

        private Block(BuddyArena arena, long offset, int order, long length) {
            this.arena = arena;
            this.offset = offset;
            this.order = order;
            this.segment = arena.slice(offset, order).asSlice(0, length);
            this.own = null;
            this.ownKey = 0;
            NativeMemory.populate(segment); // here on the control path, not in the data path's first copy; only what was asked for
        }

        private Block(Arena own, MemorySegment segment, int key) {
            this.arena = null;
            this.offset = 0;
            this.order = -1;
            this.segment = segment;
            this.own = own;
            this.ownKey = key;
        }

        /** Exactly the requested bytes. */
        public MemorySegment segment() {
            return segment;
        }

        /** The key its arena was registered under, for transfers from or into it. */
        public int localKey() {
            return arena != null ? arena.localKey : ownKey;
        }
    }

    private final long arenaBytes;
    private final long cacheBytes;
    private final Registrar registrar;
    private final List<BuddyArena> arenas = new ArrayList<>();
    private final Set<Block> ownBlocks = new HashSet<>();
    private long usedBytes;
    private long ownBytes; // in blocks with memory of their own, all of them used
    private boolean closed;

    public LocalMemory(long arenaBytes, long cacheBytes, Registrar registrar) {
        if (Long.bitCount(arenaBytes) != 1) {
            throw ErrorCode.INVALID_ARGUMENT.exception("local arena size must be a power of two, was " + arenaBytes);
        }
        this.arenaBytes = arenaBytes;
        this.cacheBytes = cacheBytes;
        this.registrar = registrar;
    }

    /** A block of at least {@code bytes} (rounded up to a power of two, at least 64, up to an arena's size; whole pages past it). */
    public synchronized Block allocate(long bytes) {
        if (closed) {
            throw ErrorCode.CLOSED.exception("local memory was closed with its client");
        }
        if (bytes <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot allocate " + bytes + " bytes of local memory");
        }
        if (bytes > arenaBytes) {
            return allocateOwn(bytes);
        }
        int order = BuddyArena.orderOf(bytes);
        for (BuddyArena arena : arenas) {
            long offset = arena.allocate(order);
            if (offset >= 0) {
                usedBytes += BuddyArena.sizeOf(order);
                return new Block(arena, offset, order, bytes);
            }
        }
        BuddyArena arena;
        try {
            arena = new BuddyArena(arenaBytes);
        } catch (OutOfMemoryError e) {
            throw ErrorCode.OUT_OF_MEMORY.exception("cannot allocate " + bytes + " bytes of local memory for a mapping: " + e.getMessage());
        }
        try {
            arena.localKey = registrar.register(arena.memory());
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        arenas.add(arena);
        long offset = arena.allocate(order);
        usedBytes += BuddyArena.sizeOf(order);
        return new Block(arena, offset, order, bytes);
    }

    private Block allocateOwn(long bytes) {
        Arena own = Arena.ofShared();
        MemorySegment memory;
        try {
            memory = NativeMemory.allocate(own, bytes);
        } catch (OutOfMemoryError e) {
            own.close();
            throw ErrorCode.OUT_OF_MEMORY.exception("cannot allocate " + bytes + " bytes of local memory for a mapping: " + e.getMessage());
        }
        int key;
        try {
            key = registrar.register(memory);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
        Block block = new Block(own, memory, key);
        ownBlocks.add(block);
        ownBytes += NativeMemory.footprint(bytes);
        return block;
    }

    public synchronized void free(Block block) {
        if (closed) {
            return;
        }
        if (block.arena == null) {
            if (ownBlocks.remove(block)) { // once only
                ownBytes -= NativeMemory.footprint(block.segment.byteSize());
                releaseOwn(block);
            }
            return;
        }
        block.arena.free(block.offset, block.order);
        usedBytes -= BuddyArena.sizeOf(block.order);
        trim();
    }

    /** Bytes held: arenas, and blocks with memory of their own. */
    public synchronized long heldBytes() {
        long held = ownBytes;
        for (BuddyArena arena : arenas) {
            held += arena.sizeBytes();
        }
        return held;
    }

    /** Bytes in blocks handed out. */
    public synchronized long usedBytes() {
        return usedBytes + ownBytes;
    }

    /** Gives back wholly unused arenas while more than the cache's worth sit idle. */
    private void trim() {
        long idle = heldBytes() - usedBytes();
        for (int i = 0; i < arenas.size() && idle > cacheBytes; ) {
            BuddyArena arena = arenas.get(i);
            if (arena.isUnused()) {
                arenas.remove(i);
                idle -= arena.sizeBytes();
                release(arena);
            } else {
                i++;
            }
        }
    }

    private void release(BuddyArena arena) {
        registrar.deregister(arena.localKey); // before the memory goes: a device must never write into freed pages
        arena.close();
    }

    private void releaseOwn(Block block) {
        registrar.deregister(block.ownKey);
        block.own.close();
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            arenas.forEach(this::release);
            arenas.clear();
            ownBlocks.forEach(this::releaseOwn);
            ownBlocks.clear();
            ownBytes = 0;
        }
    }
}

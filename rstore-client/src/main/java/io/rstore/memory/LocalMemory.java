package io.rstore.memory;

import io.rstore.ErrorCode;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A client's RDMA-ready local memory: large arenas split by a buddy allocator. Freed
 * blocks stay in the arenas as a cache for the next mapping; when more than
 * {@code cacheBytes} sit unused, wholly unused arenas are given back, smallest first.
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
        private final BuddyArena arena;
        private final long offset;
        private final int order;
        private final MemorySegment segment;

        private Block(BuddyArena arena, long offset, int order, long length) {
            this.arena = arena;
            this.offset = offset;
            this.order = order;
            this.segment = arena.slice(offset, order).asSlice(0, length);
        }

        /** Exactly the requested bytes. */
        public MemorySegment segment() {
            return segment;
        }

        /** The key its arena was registered under, for transfers from or into it. */
        public int localKey() {
            return arena.localKey;
        }
    }

    private final long arenaBytes;
    private final long cacheBytes;
    private final Registrar registrar;
    private final List<BuddyArena> arenas = new ArrayList<>();
    private long usedBytes;
    private boolean closed;

    public LocalMemory(long arenaBytes, long cacheBytes, Registrar registrar) {
        if (Long.bitCount(arenaBytes) != 1) {
            throw ErrorCode.INVALID_ARGUMENT.exception("local arena size must be a power of two, was " + arenaBytes);
        }
        this.arenaBytes = arenaBytes;
        this.cacheBytes = cacheBytes;
        this.registrar = registrar;
    }

    /** A block of at least {@code bytes} (rounded up to a power of two, at least 64). */
    public synchronized Block allocate(long bytes) {
        if (closed) {
            throw ErrorCode.CLOSED.exception("local memory was closed with its client");
        }
        if (bytes <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot allocate " + bytes + " bytes of local memory");
        }
        int order = BuddyArena.orderOf(bytes);
        for (BuddyArena arena : arenas) { // smallest arenas first: keep big ones whole
            long offset = arena.allocate(order);
            if (offset >= 0) {
                usedBytes += BuddyArena.sizeOf(order);
                return new Block(arena, offset, order, bytes);
            }
        }
        BuddyArena arena;
        try {
            arena = new BuddyArena(Math.max(arenaBytes, BuddyArena.sizeOf(order)));
        } catch (OutOfMemoryError e) {
            throw ErrorCode.OUT_OF_MEMORY.exception("cannot allocate " + bytes + " bytes of local memory for a mapping: " + e.getMessage());
        }
        try {
            arena.localKey = registrar.register(arena.memory());
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        int at = 0;
        while (at < arenas.size() && arenas.get(at).sizeBytes() <= arena.sizeBytes()) {
            at++;
        }
        arenas.add(at, arena);
        long offset = arena.allocate(order);
        usedBytes += BuddyArena.sizeOf(order);
        return new Block(arena, offset, order, bytes);
    }

    public synchronized void free(Block block) {
        if (closed) {
            return;
        }
        block.arena.free(block.offset, block.order);
        usedBytes -= BuddyArena.sizeOf(block.order);
        trim();
    }

    /** Bytes held in arenas. */
    public synchronized long heldBytes() {
        long held = 0;
        for (BuddyArena arena : arenas) {
            held += arena.sizeBytes();
        }
        return held;
    }

    /** Bytes in blocks handed out. */
    public synchronized long usedBytes() {
        return usedBytes;
    }

    /** Gives back wholly unused arenas, smallest first: a large one is the costliest to make again. */
    private void trim() {
        long idle = heldBytes() - usedBytes;
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

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            arenas.forEach(this::release);
            arenas.clear();
        }
    }
}

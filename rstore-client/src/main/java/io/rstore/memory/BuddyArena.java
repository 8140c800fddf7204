package io.rstore.memory;

import it.unimi.dsi.fastutil.longs.LongIterator;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One power-of-two arena of local memory split by the buddy system: a block of order
 * {@code o} is {@code MIN_BLOCK << o} bytes at an offset that is a multiple of its size;
 * freeing a block merges it with its buddy while the buddy is free. Not thread-safe
 * ({@link LocalMemory} serialises it).
 */
final class BuddyArena {
    /** Smallest block: one cache line, so a polled flag never shares one with other data. */
    static final long MIN_BLOCK = 64;
    private static final int MIN_SHIFT = 6;

    private final Arena arena;
    private final MemorySegment memory;
    private final int maxOrder;
    private final LongOpenHashSet[] free;
    private long freeBytes;
    int localKey; // what LocalMemory's registrar returned for this arena

    BuddyArena(long sizeBytes) {
        if (Long.bitCount(sizeBytes) != 1 || sizeBytes < MIN_BLOCK) {
            throw new IllegalArgumentException("arena size must be a power of two >= 64, was " + sizeBytes);
        }
        arena = Arena.ofShared();
        memory = NativeMemory.reserve(arena, sizeBytes); // faulted in block by block (LocalMemory), or whole by an RDMA registration
        maxOrder = orderOf(sizeBytes);
        free = new LongOpenHashSet[maxOrder + 1];
        for (int o = 0; o <= maxOrder; o++) {
            free[o] = new LongOpenHashSet();
        }
        free[maxOrder].add(0L);
        freeBytes = sizeBytes;
    }

    /** The smallest order whose block holds {@code bytes}. */
    static int orderOf(long bytes) {
        long size = Math.max(bytes, MIN_BLOCK);
        return 64 - Long.numberOfLeadingZeros(size - 1) - MIN_SHIFT;
    }

    static long sizeOf(int order) {
        return MIN_BLOCK << order;
    }

    int maxOrder() {
        return maxOrder;
    }

    long sizeBytes() {
        return memory.byteSize();
    }

    long freeBytes() {
        return freeBytes;
    }

    boolean isUnused() {
        return freeBytes == memory.byteSize();
    }

    MemorySegment memory() {
        return memory;
    }

    MemorySegment slice(long offset, int order) {
        return memory.asSlice(offset, sizeOf(order));
    }

    /** Returns the offset of a free block of {@code order}, or -1 when none is left. */
    long allocate(int order) {
        if (order > maxOrder) {
            return -1;
        }
        int o = order;
        while (o <= maxOrder && free[o].isEmpty()) {
            o++;
        }
        if (o > maxOrder) {
            return -1;
        }
        LongIterator it = free[o].iterator();
        long offset = it.nextLong();
        it.remove();
        while (o > order) { // split, keeping the lower half and freeing the upper
            o--;
            free[o].add(offset + sizeOf(o));
        }
        freeBytes -= sizeOf(order);
        return offset;
    }

    void free(long offset, int order) {
        freeBytes += sizeOf(order);
        int o = order;
        long block = offset;
        while (o < maxOrder) {
            long buddy = block ^ sizeOf(o);
            if (!free[o].remove(buddy)) {
                break;
            }
            block = Math.min(block, buddy);
            o++;
        }
        free[o].add(block);
    }

    void close() {
        arena.close();
    }
}

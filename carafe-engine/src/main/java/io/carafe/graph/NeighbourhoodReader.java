package io.carafe.graph;

import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Any vertex's out- and in-neighbours. Where the client reaches the servers' memory
 * (in-process servers, shm), straight from the graph's edge arrays, each chunk of them
 * mapped {@link io.rstore.MapFlags#DIRECT} as the reader starts: nothing read, copied or held but
 * lists that cross chunks. Elsewhere, read one-sided through a bounded cache of
 * fixed-size blocks of the edge arrays, each block read whole on its
 * first use and kept until the cache needs its room (oldest loaded first out). A worker's
 * own vertices' lists come through it too: a program that reads neighbourhoods mostly
 * reads them once, in order (Triangles orients the graph from them), so the partition's
 * edges and in-edges are not read whole beside the cache (what they held:
 * docs/measure/notebook.md).
 * Where every vertex's list starts comes from the graph's offsets ({@link EdgeOffsets}),
 * read once. An edge array the cache can hold whole is kept whole (a list is then read
 * where it lies); in a smaller cache a list that crosses a block boundary is copied into
 * a scratch array that grows to the longest such list. Nothing else is allocated per call.
 */
public final class NeighbourhoodReader implements AutoCloseable {
    /** The cache's unit: a block of an edge array, read whole. */
    public static final long BLOCK_BYTES = 1L << 20;
    private static final int BLOCK_INTS = (int) (BLOCK_BYTES / Integer.BYTES);
    /** The least cache: three blocks per edge array, so two pinned lists leave one to read into. */
    public static final long MIN_CACHE_BYTES = 6 * BLOCK_BYTES;
    private static final int OUT = 0;
    private static final int IN = 1;

    private final EdgeOffsets offsets;
    private final Blocks outBlocks;
    private final Blocks inBlocks;           // null on an undirected graph
    private final Arena arena = Arena.ofShared();
    private final Neighbours out = new Neighbours();
    private final Neighbours in = new Neighbours();

    /**
     * Reads graph {@code name}'s lists: where the client reaches the servers' memory
     * (in-process servers, shm), straight from the graph's own bytes, holding none; elsewhere
     * keeping at most {@code cacheBytes} of its edges (at least {@link #MIN_CACHE_BYTES}).
     */
    public NeighbourhoodReader(RStore rstore, String name, EdgeOffsets offsets, long cacheBytes) {
        this(rstore, name, offsets, cacheBytes, true);
    }

    /** {@code direct}: the graph's own bytes where the transport allows; false: the cache whatever the transport (tests of it). */
    NeighbourhoodReader(RStore rstore, String name, EdgeOffsets offsets, long cacheBytes, boolean direct) {
        if (cacheBytes < MIN_CACHE_BYTES) {
            throw new IllegalArgumentException("a neighbourhood cache needs at least " + MIN_CACHE_BYTES + " bytes, was given " + cacheBytes);
        }
        GraphHeader header = CarafeGraph.readHeader(rstore, name);
        this.offsets = offsets;
        RAddress targets = rstore.joinNamespace(CarafeGraph.namespace(name, "edges")).raddress(header.edgesAt());
        int slots = (int) Math.min(Integer.MAX_VALUE, cacheBytes / BLOCK_BYTES);
        if (header.directed()) {
            RAddress sources = rstore.joinNamespace(CarafeGraph.namespace(name, GraphHeader.Section.IN_SOURCES.part())).raddress(header.inSourcesAt());
            this.outBlocks = new Blocks(targets, slots / 2, arena, direct);
            this.inBlocks = new Blocks(sources, slots - slots / 2, arena, direct);
        } else {
            this.outBlocks = new Blocks(targets, slots, arena, direct);
            this.inBlocks = null;
        }
    }

    public int outDegree(int vertex) {
        return (int) (offsets.outFirst(vertex + 1) - offsets.outFirst(vertex));
    }

    /** The in-degree: on an undirected graph, the out-degree. */
    public int inDegree(int vertex) {
        return offsets.directed() ? (int) (offsets.inFirst(vertex + 1) - offsets.inFirst(vertex)) : outDegree(vertex);
    }

    /** Vertex {@code vertex}'s out-neighbours; the same flyweight each call, re-pointed. */
    public Neighbours out(int vertex) {
        return outInto(out, OUT, vertex);
    }

    /**
     * Vertex {@code vertex}'s in-neighbours (its out-neighbours on an undirected graph); the
     * same flyweight each call, re-pointed. What {@link #out} last returned stays valid.
     */
    public Neighbours in(int vertex) {
        if (!offsets.directed()) {
            return outInto(in, IN, vertex);
        }
        inBlocks.wrap(in, IN, offsets.inFirst(vertex), inDegree(vertex));
        return in;
    }

    private Neighbours outInto(Neighbours into, int pin, int vertex) {
        outBlocks.wrap(into, pin, offsets.outFirst(vertex), outDegree(vertex));
        return into;
    }

    @Override
    public void close() {
        outBlocks.close();
        if (inBlocks != null) {
            inBlocks.close();
        }
        arena.close();
    }

    /**
     * One int array in RStore. Where the transport reaches the servers' memory, each chunk
     * of it is mapped {@link MapFlags#DIRECT} as the reader starts and kept ({@link
     * DirectChunks}: its own bytes, nothing read or held), and a list that crosses chunks is
     * copied into a scratch array.
     * Elsewhere, fixed-size blocks read on first use: when the cache has room for the whole
     * array, it is mapped once onto local memory of its size and each block read into place
     * the first time a list needs it: no list is ever copied. Otherwise blocks go into slots:
     * a block is mapped onto its slot, read, and unmapped (a master call each way, on a miss
     * only), and stays until its slot is the oldest loaded; a list that crosses blocks is
     * copied into a scratch array. The slots the reader's two flyweights point into are
     * pinned, so reading one list never moves the other's memory away.
     */
    private static final class Blocks {
        private final RAddress array;
        private final MemorySegment memory;   // the whole array, or slots × BLOCK_BYTES
        private final Mapping whole;          // the whole array's mapping onto memory, or null: slots
        private final long[] read;            // whole: bit b set once block b is read
        private final int[] slotOfBlock;      // slots: -1 when not cached
        private final long[] blockOfSlot;     // slots: -1 when empty
        private final int[] pinned = {-1, -1}; // the slot each flyweight (OUT, IN) points into, or -1
        private final DirectChunks chunks;    // direct: the chunks' own bytes, all mapped as the reader starts; else null
        private final MemorySegment[] scratch = {MemorySegment.ofArray(new int[0]), MemorySegment.ofArray(new int[0])};
        private int hand;                     // where the search for a slot to reuse starts: the oldest loaded

        Blocks(RAddress array, int slots, Arena arena, boolean direct) {
            this.array = array;
            this.chunks = direct ? reachable(array) : null;
            long blocks = (array.length() + BLOCK_BYTES - 1) / BLOCK_BYTES;
            if (chunks != null) {
                this.memory = arena.allocate(8, 64); // what an empty list points into
                this.whole = null;
                this.read = null;
                this.slotOfBlock = null;
                this.blockOfSlot = null;
            } else if (blocks <= slots) {
                this.memory = arena.allocate(Math.max(array.length(), 8), 64);
                this.whole = array.map(0, array.length(), MapFlags.READ_ONLY, memory);
                this.read = new long[(int) ((blocks + 63) >>> 6)];
                this.slotOfBlock = null;
                this.blockOfSlot = null;
            } else {
                this.memory = arena.allocate(slots * BLOCK_BYTES, 64);
                this.whole = null;
                this.read = null;
                this.slotOfBlock = new int[(int) blocks];
                Arrays.fill(slotOfBlock, -1);
                this.blockOfSlot = new long[slots];
                Arrays.fill(blockOfSlot, -1);
            }
        }

        /**
         * The array's chunks, if the client reaches the memory of every one of them itself: a
         * worker on one host of several reaches its own host's servers so and the others' over
         * the network, and then the cache serves the whole array, keeping its bound.
         */
        private static DirectChunks reachable(RAddress array) {
            DirectChunks chunks = new DirectChunks(array);
            if (chunks.reachesAll()) {
                return chunks;
            }
            chunks.close();
            return null;
        }

        /** Points {@code into} (pinned as {@code pin}) at ints {@code [first, first + count)}. */
        void wrap(Neighbours into, int pin, long first, int count) {
            pinned[pin] = -1;
            if (count == 0) {
                into.wrap(memory, 0, 0);
                return;
            }
            if (chunks != null) {
                wrapDirect(into, pin, 4L * first, count);
                return;
            }
            long block = first / BLOCK_INTS;
            long lastBlock = (first + count - 1) / BLOCK_INTS;
            if (whole != null) {
                for (long b = block; b <= lastBlock; b++) {
                    if ((read[(int) (b >>> 6)] & 1L << b) == 0) {
                        whole.read(b * BLOCK_BYTES, Math.min(BLOCK_BYTES, array.length() - b * BLOCK_BYTES));
                        read[(int) (b >>> 6)] |= 1L << b;
                    }
                }
                into.wrap(memory, 4L * first, count);
                return;
            }
            if (block == lastBlock) {
                long slot = slot(block);
                pinned[pin] = (int) slot;
                into.wrap(memory, slot * BLOCK_BYTES + 4L * (first - block * BLOCK_INTS), count);
                return;
            }
            MemorySegment copy = scratch(pin, count);
            long done = 0;
            for (long b = block; b <= lastBlock; b++) {
                long start = Math.max(first, b * BLOCK_INTS);
                long end = Math.min(first + count, (b + 1) * BLOCK_INTS);
                MemorySegment.copy(memory, slot(b) * BLOCK_BYTES + 4L * (start - b * BLOCK_INTS), copy, 4L * done, 4L * (end - start));
                done += end - start;
            }
            into.wrap(copy, 0, count);
        }

        /** {@link #wrap} over the chunks' own bytes: the array's bytes from {@code at}. */
        private void wrapDirect(Neighbours into, int pin, long at, int count) {
            long end = at + 4L * count;
            int chunk = chunks.chunkOf(at);
            int lastChunk = chunks.chunkOf(end - 1);
            if (chunk == lastChunk) {
                into.wrap(chunks.direct(chunk), at - chunks.chunkStart(chunk), count);
                return;
            }
            MemorySegment copy = scratch(pin, count);
            for (int c = chunk; c <= lastChunk; c++) {
                long from = Math.max(at, chunks.chunkStart(c));
                long to = Math.min(end, chunks.chunkEnd(c));
                MemorySegment.copy(chunks.direct(c), from - chunks.chunkStart(c), copy, from - at, to - from);
            }
            into.wrap(copy, 0, count);
        }

        /** The flyweight {@code pin}'s scratch array, grown to hold {@code count} ints. */
        private MemorySegment scratch(int pin, int count) {
            if (scratch[pin].byteSize() < 4L * count) {
                scratch[pin] = MemorySegment.ofArray(new int[(int) Math.max(count, scratch[pin].byteSize() / 2)]);
            }
            return scratch[pin];
        }

        /** The slot holding {@code block}, read into the oldest loaded unpinned one on a miss. */
        private long slot(long block) {
            int slot = slotOfBlock[(int) block];
            if (slot >= 0) {
                return slot;
            }
            do {
                slot = hand;
                hand = (hand + 1) % blockOfSlot.length;
            } while (slot == pinned[OUT] || slot == pinned[IN]);
            if (blockOfSlot[slot] >= 0) {
                slotOfBlock[(int) blockOfSlot[slot]] = -1;
                blockOfSlot[slot] = -1;
            }
            long offset = block * BLOCK_BYTES;
            long length = Math.min(BLOCK_BYTES, array.length() - offset);
            MemorySegment local = memory.asSlice(slot * BLOCK_BYTES, BLOCK_BYTES);
            try (Mapping ignored = array.map(offset, length, MapFlags.READ_ONLY | MapFlags.PREFETCH, local)) {
                blockOfSlot[slot] = block;
                slotOfBlock[(int) block] = slot;
            }
            return slot;
        }

        void close() {
            if (whole != null) {
                whole.close();
            }
            if (chunks != null) {
                chunks.close();
            }
        }
    }
}

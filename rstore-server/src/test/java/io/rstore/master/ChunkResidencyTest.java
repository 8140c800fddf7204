package io.rstore.master;

import io.rstore.AllocFlags;
import io.rstore.memory.NativeMemory;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.server.MemoryServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chunk of plain memory is resident as far as segments were placed in it, not whole: the
 * master has the server fault in each range an alloc hands out (zeroing it, for
 * AllocFlags.ZERO), so what a namespace never allocates of its last chunk never takes the
 * machine's memory, and what it does allocate is resident before the alloc answers (no page
 * faults on the data path). Residency is asked of the kernel (mincore).
 */
class ChunkResidencyTest {
    private static final long MiB = 1 << 20;
    private static final long CHUNK = 64 * MiB;
    private static final long PAGE = 4096;

    @Test
    void shouldHoldInMemoryWhatWasAllocatedOfAChunkAndNoMore() throws Throwable {
        assumeChunksFaultInByRange();
        Master master = new Master(CHUNK);
        try (MemoryServer server = new MemoryServer(4 * CHUNK)) {
            long session = withServer(master, server);
            NamespaceInfo ns = master.createNamespace(session, "n", 0);
            SegmentInfo small = master.alloc(session, ns.id(), 4096, AllocFlags.GROW);
            MemorySegment chunk = server.regions().memory(small.chunks().getFirst().chunkId());
            assertTrue(resident(chunk) <= 4 * MiB, "a 4 KiB segment leaves the rest of its 64 MiB chunk out of memory: " + resident(chunk) / MiB + " MiB");

            SegmentInfo big = master.alloc(session, ns.id(), 24 * MiB, AllocFlags.NONE);
            assertEquals(small.chunks().getFirst().chunkId(), big.chunks().getFirst().chunkId(), "placed in the same chunk");
            long at = big.address() % CHUNK;
            assertEquals(24 * MiB, resident(chunk.asSlice(at, 24 * MiB)), "what an alloc hands out is resident before it answers");

            SegmentInfo zeroed = master.alloc(session, ns.id(), 8 * MiB, AllocFlags.ZERO);
            assertEquals(8 * MiB, resident(chunk.asSlice(zeroed.address() % CHUNK, 8 * MiB)), "zeroing faults it in too");
            assertTrue(resident(chunk) <= 40 * MiB, "the chunk's other 30 MiB stay out of memory: " + resident(chunk) / MiB + " MiB resident");
        }
    }

    /**
     * A chunk a deleted namespace gives back is cleared by handing its pages back to the
     * kernel, not by writing zeros over all of them: the next namespace that takes it from
     * the pool finds it zeroed and holds in memory only what it allocates.
     */
    @Test
    void shouldGiveBackAPooledChunksMemoryAndHandItOutZeroed() throws Throwable {
        assumeChunksFaultInByRange();
        Master master = new Master(CHUNK);
        try (MemoryServer server = new MemoryServer(4 * CHUNK)) {
            long session = withServer(master, server);
            NamespaceInfo first = master.createNamespace(session, "first", 0);
            SegmentInfo used = master.alloc(session, first.id(), 48 * MiB, AllocFlags.GROW);
            int chunkId = used.chunks().getFirst().chunkId();
            MemorySegment chunk = server.regions().memory(chunkId);
            chunk.asSlice(used.address() % CHUNK, 48 * MiB).fill((byte) 0x5a); // the first tenant's bytes
            assertTrue(resident(chunk) >= 48 * MiB, "in use: resident");
            master.deleteNamespace(session, "first");
            assertTrue(resident(chunk) <= 4 * MiB, "back in the pool, its memory is the kernel's again: " + resident(chunk) / MiB + " MiB");

            NamespaceInfo second = master.createNamespace(session, "second", 0);
            SegmentInfo small = master.alloc(session, second.id(), 8 * MiB, AllocFlags.GROW);
            assertEquals(chunkId, small.chunks().getFirst().chunkId(), "the pooled chunk is taken again");
            MemorySegment range = chunk.asSlice(small.address() % CHUNK, 8 * MiB);
            assertEquals(8 * MiB, resident(range), "what the alloc hands out is resident");
            assertEquals(-1, range.mismatch(Arena.ofAuto().allocate(8 * MiB)), "and zero: nothing of the first tenant's is left");
            assertTrue(resident(chunk) <= 12 * MiB, "the rest stays out of memory: " + resident(chunk) / MiB + " MiB");
        }
    }

    /** Runs only where the kernel populates a range on request (Linux 5.14's MADV_POPULATE_WRITE); elsewhere chunks are faulted in whole. */
    private static void assumeChunksFaultInByRange() {
        Assumptions.assumeTrue(NativeMemory.usesHugePages() && NativeMemory.populate(Arena.ofAuto().allocate(PAGE, PAGE)),
                "needs Linux 5.14's MADV_POPULATE_WRITE (elsewhere chunks are faulted in whole)");
    }

    /** Registers {@code server} with {@code master} and opens a session. */
    private static long withServer(Master master, MemoryServer server) {
        master.registerServer("inproc://t/0", server);
        return master.openSession("test");
    }

    /** Bytes of {@code memory}'s pages that are in memory (mincore). */
    private static long resident(MemorySegment memory) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle mincore = linker.downcallHandle(linker.defaultLookup().find("mincore").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS));
        long start = memory.address() & -PAGE;
        long length = memory.address() + memory.byteSize() - start;
        long pages = (length + PAGE - 1) / PAGE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment vector = arena.allocate(pages);
            int rc = (int) mincore.invokeExact(MemorySegment.ofAddress(start), length, vector);
            assertEquals(0, rc, "mincore");
            long resident = 0;
            for (long p = 0; p < pages; p++) {
                resident += vector.get(ValueLayout.JAVA_BYTE, p) & 1;
            }
            return resident * PAGE;
        }
    }
}

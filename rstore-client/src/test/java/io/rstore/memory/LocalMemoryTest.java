package io.rstore.memory;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LocalMemoryTest {
    private static final long ARENA = 1 << 20;

    @Test
    void shouldRoundBlocksToPowersOfTwoOfAtLeastACacheLine() {
        assertEquals(0, BuddyArena.orderOf(1));
        assertEquals(0, BuddyArena.orderOf(64));
        assertEquals(1, BuddyArena.orderOf(65));
        assertEquals(14, BuddyArena.orderOf(1 << 20));
        assertEquals(15, BuddyArena.orderOf((1 << 20) + 1));
    }

    @Test
    void shouldHandOutBlocksThatNeverOverlap() {
        try (LocalMemory memory = new LocalMemory(ARENA, 0, LocalMemory.Registrar.NONE)) {
            Random random = new Random(42);
            List<LocalMemory.Block> blocks = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                LocalMemory.Block b = memory.allocate(1 + random.nextInt(20_000));
                b.segment().fill((byte) i);
                blocks.add(b);
            }
            for (int i = 0; i < blocks.size(); i++) {
                var seg = blocks.get(i).segment();
                for (long at = 0; at < seg.byteSize(); at += 997) {
                    assertEquals((byte) i, seg.get(ValueLayout.JAVA_BYTE, at), "block " + i + " was overwritten");
                }
            }
            blocks.forEach(memory::free);
            assertEquals(0, memory.usedBytes());
        }
    }

    @Test
    void shouldMergeBuddiesBackIntoOneWholeArena() {
        BuddyArena arena = new BuddyArena(ARENA);
        try {
            List<Long> offsets = new ArrayList<>();
            long offset;
            while ((offset = arena.allocate(3)) >= 0) {
                offsets.add(offset);
            }
            assertEquals(ARENA / 512, offsets.size());
            assertEquals(0, arena.freeBytes());
            java.util.Collections.shuffle(offsets, new Random(7));
            offsets.forEach(o -> arena.free(o, 3));
            assertTrue(arena.isUnused());
            assertEquals(0, arena.allocate(arena.maxOrder()), "the whole arena is one block again");
        } finally {
            arena.close();
        }
    }

    @Test
    void shouldReuseCachedMemoryInsteadOfGrowing() {
        try (LocalMemory memory = new LocalMemory(ARENA, 8 * ARENA, LocalMemory.Registrar.NONE)) {
            LocalMemory.Block b = memory.allocate(4096);
            memory.free(b);
            long held = memory.heldBytes();
            for (int i = 0; i < 100; i++) {
                memory.free(memory.allocate(4096));
            }
            assertEquals(held, memory.heldBytes());
        }
    }

    @Test
    void shouldGiveLargeRequestsAnArenaOfTheirOwnAndTrimItPastTheThreshold() {
        try (LocalMemory memory = new LocalMemory(ARENA, ARENA, LocalMemory.Registrar.NONE)) {
            LocalMemory.Block small = memory.allocate(100);
            LocalMemory.Block big = memory.allocate(4 * ARENA);
            assertEquals(4 * ARENA, big.segment().byteSize());
            assertEquals(5 * ARENA, memory.heldBytes());
            memory.free(big); // 4 arenas' worth idle > threshold of 1: the big arena goes back
            assertEquals(ARENA, memory.heldBytes());
            memory.free(small); // 1 arena idle == threshold: kept as cache
            assertEquals(ARENA, memory.heldBytes());
        }
    }

    @Test
    void shouldHoldALargeBlockInWholePagesNotAPowerOfTwo() {
        try (LocalMemory memory = new LocalMemory(ARENA, 64 * ARENA, LocalMemory.Registrar.NONE)) {
            long bytes = 8 * ARENA + 1; // a buddy arena would round it to 16
            LocalMemory.Block big = memory.allocate(bytes);
            assertEquals(bytes, big.segment().byteSize());
            big.segment().set(ValueLayout.JAVA_BYTE, bytes - 1, (byte) 7);
            assertTrue(memory.heldBytes() >= bytes && memory.heldBytes() <= bytes + (2 << 20), "held " + memory.heldBytes());
            assertEquals(memory.heldBytes(), memory.usedBytes());
            memory.free(big); // given back at once, however large the cache: another size would not fit it
            assertEquals(0, memory.heldBytes());
            assertEquals(0, memory.usedBytes());
            memory.free(big); // a second free changes nothing
            assertEquals(0, memory.heldBytes());
        }
    }

    @Test
    void shouldFaultInTheBlocksHandedOutNotTheWholeArena() throws java.io.IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(NativeMemory.usesHugePages(), "arenas come from mmap on Linux only");
        long arena = 512L << 20;
        try (LocalMemory memory = new LocalMemory(arena, 0, LocalMemory.Registrar.NONE)) {
            long before = residentBytes();
            LocalMemory.Block block = memory.allocate(4 << 20);
            long grown = residentBytes() - before;
            assertTrue(grown >= 4 << 20, "the block is faulted in when handed out: " + grown + " bytes");
            assertTrue(grown < 128 << 20, "the arena's other 508 MiB are not: " + grown + " bytes grew");
            assertEquals(arena, memory.heldBytes());
            memory.free(block);
        }
    }

    /** This process's resident memory, from /proc. */
    private static long residentBytes() throws java.io.IOException {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    @Test
    void shouldRefuseToAllocateAfterClose() {
        LocalMemory memory = new LocalMemory(ARENA, 0, LocalMemory.Registrar.NONE);
        memory.close();
        RStoreException e = assertThrows(RStoreException.class, () -> memory.allocate(64));
        assertEquals(ErrorCode.CLOSED, e.code());
    }
}

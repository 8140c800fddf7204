package io.rstore.transport;

import io.rstore.ErrorCode;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class RegionTableTest {
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment chunk = arena.allocate(4096);
    private final MemorySegment local = arena.allocate(4096);
    private final RegionTable table = new RegionTable();
    private final int id = table.register(chunk);
    private final long key = table.key(id);

    @Test
    void shouldCopyBothWaysWithTheRightKey() {
        local.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9abcL);
        assertEquals(0, table.write(id, key, 128, local, 0, 8));
        assertEquals(0x1234_5678_9abcL, chunk.get(ValueLayout.JAVA_LONG, 128));
        assertEquals(0, table.read(id, key, 128, local, 64, 8));
        assertEquals(0x1234_5678_9abcL, local.get(ValueLayout.JAVA_LONG, 64));
    }

    @Test
    void shouldRejectAWrongKeyWithoutTouchingMemory() {
        chunk.set(ValueLayout.JAVA_LONG, 0, 99);
        local.set(ValueLayout.JAVA_LONG, 0, 7);
        assertEquals(ErrorCode.UNAUTHORIZED.code(), table.read(id, key + 1, 0, local, 0, 8));
        assertEquals(ErrorCode.UNAUTHORIZED.code(), table.write(id, key ^ 0x10, 0, local, 0, 8));
        assertEquals(7, local.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(99, chunk.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void shouldRejectUnknownChunkIds() {
        assertEquals(ErrorCode.UNAUTHORIZED.code(), table.read(id + 5, key, 0, local, 0, 8));
        assertEquals(ErrorCode.UNAUTHORIZED.code(), table.read(-1, key, 0, local, 0, 8));
        assertEquals(ErrorCode.UNAUTHORIZED.code(), table.read(1_000_000, key, 0, local, 0, 8));
    }

    @Test
    void shouldRejectAccessOutsideTheChunk() {
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), table.read(id, key, 4090, local, 0, 8));
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), table.read(id, key, -8, local, 0, 8));
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), table.write(id, key, 8, local, 0, -1));
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), table.write(id, key, Long.MAX_VALUE, local, 0, 8));
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), table.read(id, key, 8, local, 0, Long.MAX_VALUE));
    }

    @Test
    void shouldRejectALocalRangeOutsideTheLocalBuffer() {
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), table.read(id, key, 0, local, 4092, 8));
    }

    @Test
    void shouldKillOldCredentialsOnRekey() {
        long fresh = table.rekey(id);
        assertNotEquals(key, fresh);
        assertEquals(ErrorCode.UNAUTHORIZED.code(), table.read(id, key, 0, local, 0, 8));
        assertEquals(0, table.read(id, fresh, 0, local, 0, 8));
    }

    @Test
    void shouldAnswerServerUnavailableWhenOffline() {
        table.setOnline(false);
        assertEquals(ErrorCode.SERVER_UNAVAILABLE.code(), table.read(id, key, 0, local, 0, 8));
        table.setOnline(true);
        assertEquals(0, table.read(id, key, 0, local, 0, 8));
    }

    @Test
    void shouldFailCleanlyWhenTheChunkMemoryIsClosed() {
        Arena closing = Arena.ofShared();
        int other = table.register(closing.allocate(1024));
        long otherKey = table.key(other);
        closing.close();
        assertEquals(ErrorCode.SERVER_UNAVAILABLE.code(), table.read(other, otherKey, 0, local, 0, 8));
    }

    /** Keys are 64 random bits: across 64 chunks some key needs more than 32 (all fitting in 32 has odds of 2^-2048). */
    @Test
    void shouldUseSixtyFourBitKeys() {
        boolean wide = false;
        for (int i = 0; i < 64; i++) {
            long k = table.key(table.register(arena.allocate(64)));
            wide |= k != (int) k;
        }
        assertTrue(wide, "64 keys all fit in 32 bits");
    }
}

package io.rstore;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ErrorCodeTest {

    @Test
    void shouldGiveEveryCodeAUniqueStableNumber() {
        Set<Integer> seen = new HashSet<>();
        for (ErrorCode code : ErrorCode.values()) {
            assertTrue(seen.add(code.code()), "duplicate number " + code.code() + " for " + code);
        }
        // the numbers are the wire format: pin a few so a reorder cannot slip through
        assertEquals(0, ErrorCode.NONE.code());
        assertEquals(3, ErrorCode.INVALID_ADDRESS.code());
        assertEquals(4, ErrorCode.ADDRESS_IN_USE.code());
        assertEquals(10, ErrorCode.OUT_OF_BOUNDS.code());
    }

    @Test
    void shouldRoundTripEveryCodeThroughItsNumber() {
        for (ErrorCode code : ErrorCode.values()) {
            assertEquals(code, ErrorCode.of(code.code()));
        }
    }

    @Test
    void shouldMapUnknownNumbersToUnknown() {
        assertEquals(ErrorCode.UNKNOWN, ErrorCode.of(999));
        assertEquals(ErrorCode.UNKNOWN, ErrorCode.of(-7));
        assertEquals(ErrorCode.UNKNOWN, ErrorCode.of(31));
    }

    @Test
    void shouldPutCodeReasonAndAdviceInTheMessage() {
        RStoreException e = ErrorCode.SEGMENT_IN_USE.exception("segment at 64 is mapped 2 time(s)");
        assertEquals(ErrorCode.SEGMENT_IN_USE, e.code());
        assertTrue(e.getMessage().startsWith("SEGMENT_IN_USE: segment at 64 is mapped 2 time(s)"), e.getMessage());
        assertTrue(e.getMessage().contains("unmap it everywhere first"), e.getMessage());
    }

    @Test
    void shouldRejectBadSettingsNamingTheSetting() {
        RStoreException e = org.junit.jupiter.api.Assertions.assertThrows(RStoreException.class,
                () -> RStoreSettings.defaults().withChunkSizeBytes(3_000_000));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("chunkSizeBytes"), e.getMessage());
    }
}

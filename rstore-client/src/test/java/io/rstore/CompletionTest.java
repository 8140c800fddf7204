package io.rstore;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompletionTest {

    @Test
    void shouldKeepTheFirstFailureOfSeveralPieces() {
        Completion c = new Completion();
        c.arm(3, 1_000_000_000L);
        c.complete(0);
        c.complete(ErrorCode.OUT_OF_BOUNDS.code());
        assertFalse(c.isDone());
        c.complete(ErrorCode.UNAUTHORIZED.code());
        assertTrue(c.isDone());
        assertEquals(ErrorCode.OUT_OF_BOUNDS.code(), c.await());
        assertEquals(ErrorCode.OUT_OF_BOUNDS, c.status());
    }

    @Test
    @Timeout(10)
    void shouldTimeOutWhenAPieceNeverCompletes() {
        Completion c = new Completion();
        c.arm(1, 20_000_000L);
        long start = System.nanoTime();
        assertEquals(ErrorCode.TIMED_OUT.code(), c.await());
        long waited = System.nanoTime() - start;
        assertTrue(waited >= 20_000_000L, "timed out early, after " + waited + " ns");
        assertTrue(waited < 2_000_000_000L, "timed out late, after " + waited + " ns"); // the clock is read every 64 polls
        RStoreException e = assertThrows(RStoreException.class, c::join);
        assertEquals(ErrorCode.TIMED_OUT, e.code());
    }

    @Test
    @Timeout(10)
    void shouldWakeWhenAnotherThreadCompletes() throws Exception {
        Completion c = new Completion();
        c.arm(1, 5_000_000_000L);
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            c.complete(0);
        });
        t.start();
        assertEquals(0, c.await());
        t.join();
    }

    @Test
    void shouldRefuseToBeReArmedWhileInFlight() {
        Completion c = new Completion();
        c.arm(1, 1_000_000_000L);
        assertThrows(RStoreException.class, () -> c.arm(1, 1_000_000_000L));
    }
}

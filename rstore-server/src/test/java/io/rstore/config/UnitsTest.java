package io.rstore.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Sizes as people read them: whole units exactly, anything else to a tenth of the largest unit it reaches. */
class UnitsTest {
    @Test
    void shouldHumaniseEverySize() {
        assertEquals("16 MiB", Units.bytes(16L << 20));
        assertEquals("8 GiB", Units.bytes(8L << 30));
        assertEquals("1.1 GiB", Units.bytes(1_234_567_890L));
        assertEquals("1.5 MiB", Units.bytes(3L << 19));
        assertEquals("2.0 KiB", Units.bytes(2049));
        assertEquals("1023 B", Units.bytes(1023));
        assertEquals(1_234_567_890L, Units.parseBytes("1234567890"));
    }
}

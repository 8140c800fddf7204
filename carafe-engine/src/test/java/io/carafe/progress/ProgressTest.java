package io.carafe.progress;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Progress where it is not a terminal: whole lines, no carriage returns, an end line; nothing for a short task. */
class ProgressTest {

    @Test
    void shouldWritePlainLinesWithoutCarriageReturnsAndAnEnd() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        try (Progress p = new PlainProgress(out, "importing big.txt", 100L << 20, " MB", 1 << 20, 0, 0)) {
            p.update(25L << 20, "3.1 M edges/s");
            p.update(50L << 20, "");
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(text.contains("\r"), text);
        String[] lines = text.split("\n");
        assertEquals(3, lines.length, text);
        assertTrue(lines[0].startsWith("importing big.txt: 25.0% (25 of 100 MB), ") && lines[0].endsWith(" s left, 3.1 M edges/s"), lines[0]);
        assertTrue(lines[1].startsWith("importing big.txt: 50.0% (50 of 100 MB)"), lines[1]);
        assertTrue(lines[2].matches("importing big\\.txt: done, 100 MB in [0-9.]+ s"), lines[2]);
    }

    @Test
    void shouldSayNothingAboutAShortTask() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (Progress p = Progress.start(new PrintStream(bytes, true, StandardCharsets.UTF_8), "importing small.txt", 10, "", 1)) {
            p.update(10, "");
        }
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
    }
}

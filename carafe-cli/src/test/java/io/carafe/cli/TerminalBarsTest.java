package io.carafe.cli;

import io.carafe.progress.Progress;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The carafe command's bars: found by the engine through ServiceLoader, and drawn to 100% when the task ends. */
class TerminalBarsTest {

    @Test
    void shouldBeFoundAndEndAtAHundredPercent() {
        assertTrue(ServiceLoader.load(Progress.Bars.class).findFirst().orElseThrow() instanceof TerminalBars);
        PrintStream before = System.err;
        ByteArrayOutputStream drawn = new ByteArrayOutputStream();
        System.setErr(new PrintStream(drawn, true, StandardCharsets.UTF_8));
        try (Progress bar = new TerminalBars().start("importing x", 10L << 20, " MB", 1 << 20)) {
            bar.update(3L << 20, "1.0 M edges/s"); // the task ends early: close still shows it whole
        } finally {
            System.setErr(before);
        }
        String text = drawn.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("importing x") && text.contains("100%") && text.contains("10/10 MB"), text);
    }

    /** Work of unknown length (supersteps until a program converges) is counted, never drawn as "? %" or "n/?". */
    @Test
    void shouldCountWorkOfUnknownLengthWithoutQuestionMarks() throws Exception {
        PrintStream before = System.err;
        ByteArrayOutputStream drawn = new ByteArrayOutputStream();
        System.setErr(new PrintStream(drawn, true, StandardCharsets.UTF_8));
        try (Progress bar = new TerminalBars().start("bfs on g", 0, " supersteps", 1)) {
            bar.update(7, "");
            Thread.sleep(450); // a redraw or two
        } finally {
            System.setErr(before);
        }
        String text = drawn.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("bfs on g: 7 supersteps in "), text);
        assertTrue(!text.contains("?"), text);
    }
}

package io.carafe.progress;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * The progress of one long task (an import, a download, a Pregel job's supersteps) on a
 * stream. When that stream is the process's stderr and stderr is a terminal, a bar drawn
 * by the {@link Bars} the application provides (the carafe command's uses
 * me.tongfei:progressbar); otherwise plain lines, one every few seconds, with no carriage
 * returns, so a log holds them as they are. Short tasks print nothing.
 */
public interface Progress extends AutoCloseable {

    /** Where the task stands: {@code done} of the total units, and a few words more (or empty). */
    void update(long done, String extra);

    /** The task ended: a bar is drawn to 100%, plain output says how long it took (if it said anything). */
    @Override
    void close();

    /**
     * Starts reporting a task of {@code total} units (0 or less: unknown) of {@code unitSize}
     * each, shown as {@code unit} (e.g. 1 MiB as " MB"), on {@code out}.
     */
    static Progress start(PrintStream out, String task, long total, String unit, long unitSize) {
        Bars bars = out == System.err ? Terminal.bars() : null;
        return bars != null ? bars.start(task, total, unit, unitSize) : new PlainProgress(out, task, total, unit, unitSize);
    }

    /** Whether progress on stderr is drawn as bars (stderr is a terminal and the application provides them). */
    static boolean barsOnStderr() {
        return Terminal.bars() != null;
    }

    /** What an application plugs in (java.util.ServiceLoader) to draw bars on a terminal's stderr. */
    interface Bars {
        Progress start(String task, long total, String unit, long unitSize);
    }

    /** Whether stderr is a terminal: on Linux, where fd 2 leads; elsewhere, whether the JVM has a terminal console. */
    final class Terminal {
        static final boolean STDERR = stderrIsTerminal();
        private static final Bars BARS = STDERR ? ServiceLoader.load(Bars.class).findFirst().orElse(null) : null;

        private Terminal() {
        }

        static Bars bars() {
            return BARS;
        }

        private static boolean stderrIsTerminal() {
            if ("dumb".equals(System.getenv("TERM"))) {
                return false;
            }
            Path fd = Path.of("/proc/self/fd/2");
            if (Files.exists(fd)) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
                } catch (IOException | UnsupportedOperationException e) {
                    return false;
                }
            }
            return System.console() != null && System.console().isTerminal();
        }
    }
}

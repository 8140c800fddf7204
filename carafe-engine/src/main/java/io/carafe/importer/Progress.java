package io.carafe.importer;

import java.io.PrintStream;

/**
 * A progress line on stderr for long imports: bytes, edges per second and time left.
 * Silent for the first second (short imports print nothing) and at most twice a second
 * after.
 */
public final class Progress {
    private final PrintStream out;
    private final String what;
    private final long startNanos = System.nanoTime();
    private long lastNanos = startNanos;
    private boolean printed;

    public Progress(PrintStream out, String what) {
        this.out = out;
        this.what = what;
    }

    void update(long done, long total, long edges) {
        long now = System.nanoTime();
        if (now - startNanos < 1_000_000_000L || now - lastNanos < 500_000_000L) {
            return;
        }
        lastNanos = now;
        double seconds = (now - startNanos) / 1e9;
        double fraction = total > 0 ? Math.min(1.0, (double) done / total) : 0;
        double eta = fraction > 0 ? seconds * (1 - fraction) / fraction : 0;
        int width = 30;
        int filled = (int) (fraction * width);
        out.printf("\r%s [%s%s] %5.1f%% %,d MB, %,.1f M edges/s, %.0f s left   ", what,
                "#".repeat(filled), " ".repeat(width - filled), 100 * fraction, done >> 20, edges / seconds / 1e6, eta);
        out.flush();
        printed = true;
    }

    /** Ends the progress line, if one was printed. */
    public void done() {
        if (printed) {
            out.println();
            printed = false;
        }
    }
}

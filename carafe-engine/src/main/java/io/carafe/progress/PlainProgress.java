package io.carafe.progress;

import java.io.PrintStream;

/**
 * Progress as plain lines: nothing for the first {@link #QUIET_NANOS}, then a line every
 * {@link #EVERY_NANOS} ({@code importing wiki-Vote.txt: 45.0% (12 of 27 MB), 3.1 M edges/s,
 * 2 s left}), and a last line at the end if any was printed. No carriage returns.
 */
final class PlainProgress implements Progress {
    static final long QUIET_NANOS = 2_000_000_000L;
    static final long EVERY_NANOS = 5_000_000_000L;

    private final long quietNanos;
    private final long everyNanos;
    private final PrintStream out;
    private final String task;
    private final long total;
    private final String unit;
    private final long unitSize;
    private final long startNanos = System.nanoTime();
    private long lastNanos;
    private long done;
    private boolean printed;

    PlainProgress(PrintStream out, String task, long total, String unit, long unitSize) {
        this(out, task, total, unit, unitSize, QUIET_NANOS, EVERY_NANOS);
    }

    /** With other quiet and repeat times (tests). */
    PlainProgress(PrintStream out, String task, long total, String unit, long unitSize, long quietNanos, long everyNanos) {
        this.quietNanos = quietNanos;
        this.everyNanos = everyNanos;
        this.out = out;
        this.task = task;
        this.total = total;
        this.unit = unit;
        this.unitSize = Math.max(1, unitSize);
        this.lastNanos = startNanos - everyNanos + quietNanos; // the first line after the quiet time
    }

    @Override
    public void update(long done, String extra) {
        this.done = done;
        long now = System.nanoTime();
        if (now - lastNanos < everyNanos) {
            return;
        }
        lastNanos = now;
        double seconds = (now - startNanos) / 1e9;
        StringBuilder line = new StringBuilder(task).append(": ");
        if (total > 0) {
            double fraction = Math.min(1.0, (double) done / total);
            line.append(String.format("%.1f%% (%,d of %,d%s)", 100 * fraction, done / unitSize, total / unitSize, unit));
            if (fraction > 0) {
                line.append(String.format(", %.0f s left", seconds * (1 - fraction) / fraction));
            }
        } else {
            line.append(String.format("%,d%s", done / unitSize, unit));
        }
        if (!extra.isEmpty()) {
            line.append(", ").append(extra);
        }
        out.println(line);
        out.flush();
        printed = true;
    }

    @Override
    public void close() {
        if (printed) {
            out.printf("%s: done, %,d%s in %.1f s%n", task, (total > 0 ? Math.max(done, total) : done) / unitSize, unit,
                    (System.nanoTime() - startNanos) / 1e9);
            out.flush();
            printed = false;
        }
    }
}

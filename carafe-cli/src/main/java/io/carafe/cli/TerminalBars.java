package io.carafe.cli;

import io.carafe.progress.Progress;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** Progress bars on a terminal's stderr, drawn by me.tongfei:progressbar; found through java.util.ServiceLoader. */
public final class TerminalBars implements Progress.Bars {

    @Override
    public Progress start(String task, long total, String unit, long unitSize) {
        ProgressBarBuilder builder = new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(total > 0 ? total : -1) // -1: a bar that counts without an end
                .setUnit(unit, Math.max(1, unitSize))
                .setStyle(ProgressBarStyle.ASCII)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .setUpdateIntervalMillis(200)
                .showSpeed();
        if (total <= 0) { // work of unknown length: a count and the time, never a "? %" or an "n/?"
            long size = Math.max(1, unitSize);
            builder.setRenderer((state, width) -> {
                String line = String.format("%s: %,d%s in %d s%s", state.getTaskName(), state.getCurrent() / size, unit,
                        state.getTotalElapsed().toSeconds(), state.getExtraMessage());
                return line.length() > width ? line.substring(0, width) : line;
            });
        }
        ProgressBar bar = builder.build();
        return new Progress() {
            private long done;

            @Override
            public void update(long done, String extra) {
                this.done = done;
                bar.stepTo(done);
                bar.setExtraMessage(extra.isEmpty() ? "" : " " + extra);
            }

            @Override
            public void close() {
                bar.maxHint(total > 0 ? total : done); // the bar ends at 100%
                bar.stepTo(total > 0 ? total : done);
                bar.close();
            }
        };
    }
}

package io.rstore.internal;

import com.codahale.metrics.Meter;

import java.util.concurrent.atomic.LongAdder;

/**
 * A Dropwizard {@link Meter} cheap enough for the data path: {@link #mark(long)} is one
 * uncontended adder increment (a plain Meter also reads the clock and updates three
 * moving averages). The count is exact; the windowed rates take in what was
 * marked since the last read whenever they are read, which is how a reporter sees them.
 */
public final class CountingMeter extends Meter {
    private final LongAdder marked = new LongAdder();
    private long fed;

    @Override
    public void mark() {
        marked.increment();
    }

    @Override
    public void mark(long n) {
        marked.add(n);
    }

    private synchronized void catchUp() {
        long total = marked.sum();
        long delta = total - fed;
        if (delta != 0) {
            fed = total;
            super.mark(delta);
        }
    }

    @Override
    public long getCount() {
        catchUp();
        return super.getCount();
    }

    @Override
    public double getMeanRate() {
        catchUp();
        return super.getMeanRate();
    }

    @Override
    public double getOneMinuteRate() {
        catchUp();
        return super.getOneMinuteRate();
    }

    @Override
    public double getFiveMinuteRate() {
        catchUp();
        return super.getFiveMinuteRate();
    }

    @Override
    public double getFifteenMinuteRate() {
        catchUp();
        return super.getFifteenMinuteRate();
    }
}

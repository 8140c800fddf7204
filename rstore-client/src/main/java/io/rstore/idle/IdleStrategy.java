package io.rstore.idle;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for something another thread or process will do: spin while it is
 * likely to come soon, then yield, then park for growing periods, so an idle wait costs
 * nothing and a short one costs no wake-up (a park's wake-up: docs/measure/notebook.md).
 */
public final class IdleStrategy {
    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;

    private int spins;
    private int yields;
    private long parkNanos;

    public IdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos <= 0 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("idle strategy: spins and yields must be >= 0 and 0 < minPark <= maxPark");
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        reset();
    }

    /** Spin 10k times, yield 100 times, then park from 1 µs doubling to 1 ms. */
    public static IdleStrategy backoff() {
        return new IdleStrategy(10_000, 100, 1_000, 1_000_000);
    }

    /**
     * For barrier waits (supersteps): spin 200 times, yield 10 times, then park from 1 µs
     * doubling to 1 ms. What a barrier waits for is a superstep of other threads' work
     * away, and where there is no core to spare (2 here, with two workers and a
     * coordinator), 10,000 spins take the CPU from the very threads being waited for: the
     * engine's supersteps took longer with {@link #backoff()} than with this
     * (docs/measure/notebook.md).
     */
    public static IdleStrategy barrier() {
        return new IdleStrategy(200, 10, 1_000, 1_000_000);
    }

    /** Call after work was found, so the next wait starts by spinning again. */
    public void reset() {
        spins = 0;
        yields = 0;
        parkNanos = minParkNanos;
    }

    /** Call when a poll found nothing. */
    public void idle() {
        if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(parkNanos << 1, maxParkNanos);
        }
    }
}

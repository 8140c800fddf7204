package io.rstore;

import io.rstore.idle.IdleStrategy;
import io.rstore.transport.Endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Completion of one asynchronous operation, which a transport may carry out as several
 * pieces (one per chunk). Reusable: arm, post, await, repeat; nothing is allocated per
 * operation. One waiter at a time.
 */
public final class Completion {
    private static final VarHandle PENDING;
    private static final VarHandle STATUS;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findVarHandle(Completion.class, "pending", int.class);
            STATUS = lookup.findVarHandle(Completion.class, "status", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Polls between two looks at the clock while waiting: a look costs as much as a poll of
     * the device, and under emulation (SoftRoCE in QEMU) several times more. A timeout of
     * seconds comes at most 64 of the idle strategy's parks (1 ms each) late.
     */
    private static final int CLOCK_EVERY = 64;

    private volatile int pending;
    private volatile int status;
    private long timeoutNanos = 30_000_000_000L;
    private final IdleStrategy idle = IdleStrategy.backoff();
    // endpoints whose poll() advances this completion (tcp); a few, reset when armed
    private Endpoint[] drivers = new Endpoint[4];
    private int driverCount;

    /** Prepares for {@code pieces} transport completions. */
    void arm(int pieces, long timeoutNanos) {
        if (pending != 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("this Completion still has " + pending + " pieces in flight; await it before reusing it");
        }
        this.timeoutNanos = timeoutNanos;
        status = 0;
        driverCount = 0;
        pending = pieces;
    }

    /** Called by a transport when posting: whoever waits must poll {@code endpoint} to see this completion. */
    public void drivenBy(Endpoint endpoint) {
        for (int i = 0; i < driverCount; i++) {
            if (drivers[i] == endpoint) {
                return;
            }
        }
        if (driverCount == drivers.length) {
            drivers = Arrays.copyOf(drivers, driverCount * 2); // once, for a batch over many servers
        }
        drivers[driverCount++] = endpoint;
    }

    /**
     * Called by a transport when one piece is done. {@code errorCode} is an
     * {@link ErrorCode} number; the first failure is kept.
     */
    public void complete(int errorCode) {
        if (errorCode != 0) {
            STATUS.compareAndSet(this, 0, errorCode);
        }
        PENDING.getAndAdd(this, -1);
    }

    public boolean isDone() {
        return pending == 0;
    }

    /** The outcome so far: NONE while all finished pieces succeeded. */
    public ErrorCode status() {
        return ErrorCode.of(status);
    }

    /**
     * Waits (spin, yield, park) until every piece is done or the operation timeout passes.
     * Returns the {@link ErrorCode} number: 0 on success. Does not throw.
     */
    public int await() {
        if (pending == 0) {
            return status;
        }
        long deadline = 0; // from the first look at the clock, 64 polls in: an operation done sooner never reads it
        idle.reset();
        for (int polls = 1; pending != 0; polls++) {
            boolean progressed = false;
            for (int i = 0; i < driverCount; i++) {
                progressed |= drivers[i].poll();
            }
            if (pending == 0) {
                break;
            }
            if ((polls & CLOCK_EVERY - 1) == 0) {
                long now = System.nanoTime();
                if (polls == CLOCK_EVERY) {
                    deadline = now + timeoutNanos;
                } else if (now - deadline > 0) {
                    return ErrorCode.TIMED_OUT.code();
                }
            }
            if (progressed) {
                idle.reset();
            } else {
                idle.idle();
            }
        }
        return status;
    }

    /** Like {@link #await()} but throws an {@link RStoreException} on failure. */
    public void join() {
        RStoreException.check(await(), "asynchronous RStore operation failed");
    }
}

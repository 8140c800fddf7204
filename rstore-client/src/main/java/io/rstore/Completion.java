package io.rstore;

import io.rstore.idle.IdleStrategy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

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

    private volatile int pending;
    private volatile int status;
    private long timeoutNanos = 30_000_000_000L;
    private final IdleStrategy idle = IdleStrategy.backoff();

    /** Prepares for {@code pieces} transport completions. */
    void arm(int pieces, long timeoutNanos) {
        if (pending != 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("this Completion still has " + pending + " pieces in flight; await it before reusing it");
        }
        this.timeoutNanos = timeoutNanos;
        status = 0;
        pending = pieces;
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
        long deadline = System.nanoTime() + timeoutNanos;
        idle.reset();
        while (pending != 0) {
            if (System.nanoTime() - deadline > 0) {
                return ErrorCode.TIMED_OUT.code();
            }
            idle.idle();
        }
        return status;
    }

    /** Like {@link #await()} but throws an {@link RStoreException} on failure. */
    public void join() {
        RStoreException.check(await(), "asynchronous RStore operation failed");
    }
}

package io.rstore.transport.rdma;

import io.rstore.ErrorCode;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory an RDMA listener may give its authenticated queue pairs for their message
 * buffers ({@link RdmaDevice#MAX_MESSAGE} each way), all of them together: a connection
 * is granted its buffers when it authenticates, or refused (OVERLOADED) when the total is
 * in use, and gives them back when it ends. Connections that have not authenticated hold
 * only {@link RdmaDevice#SMALL_MESSAGE} buffers and take nothing from it.
 */
public final class MessageBudget {
    /** The daemon setting of the total (rstore.conf; default {@link #DEFAULT_BYTES}). */
    public static final String SETTING = "rstore.rdma.message-memory";
    /** 1 GiB: the buffers of 256 authenticated connections. */
    public static final long DEFAULT_BYTES = 1L << 30;
    /** What one authenticated queue pair's buffers take. */
    public static final long PER_CONNECTION = 2L * RdmaDevice.MAX_MESSAGE;

    private final long totalBytes;
    private final AtomicLong used = new AtomicLong();

    public MessageBudget(long totalBytes) {
        if (totalBytes < 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception(SETTING + " must be at least 0 bytes, was " + totalBytes);
        }
        this.totalBytes = totalBytes;
    }

    /** Takes one connection's buffers if they fit in what is left; false otherwise. */
    boolean tryTake() {
        for (long now = used.get(); now + PER_CONNECTION <= totalBytes; now = used.get()) {
            if (used.compareAndSet(now, now + PER_CONNECTION)) {
                return true;
            }
        }
        return false;
    }

    /** Gives back what {@link #tryTake} took. */
    void giveBack() {
        used.addAndGet(-PER_CONNECTION);
    }

    /** How many connections' buffers the total holds. */
    public long connections() {
        return totalBytes / PER_CONNECTION;
    }

    public long totalBytes() {
        return totalBytes;
    }
}

package io.rstore.transport.rdma;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A reliable connection's send queue and completion queue. One-sided READ and WRITE are
 * posted with a work request id and complete, in posting order, through {@link #poll}.
 * Posting and polling are the data path: no allocation; they do not block beyond the
 * bound of a full queue. {@link #call} is the control path's RPC (a SEND and its answer).
 * Completions go to the sink given at {@link RdmaDevice#connect}. Not thread-safe: the
 * endpoint using it serializes posting and polling.
 */
public interface QueuePair extends AutoCloseable {

    /** Work requests that may be in flight at once. */
    int depth();

    /** One-sided read of {@code length} bytes at {@code remoteAddress} (under {@code rkey}) into {@code local}. */
    void postRead(long wrId, MemorySegment local, long localOffset, long remoteAddress, int rkey, int length);

    /** One-sided write of {@code length} bytes of {@code local} to {@code remoteAddress} (under {@code rkey}). */
    void postWrite(long wrId, MemorySegment local, long localOffset, long remoteAddress, int rkey, int length);

    /** Reaps completions without blocking, each to the queue pair's sink; returns how many. */
    int poll();

    /** Sends {@code request} and waits (bounded) for the answer; completions that arrive meanwhile go to the sink. */
    ByteBuffer call(ByteBuffer request, long timeoutMs);

    @Override
    void close();

    /** Receives completions: the work request id and an {@link io.rstore.ErrorCode} number (0: success). */
    @FunctionalInterface
    interface CompletionSink {
        void completed(long wrId, int status);
    }
}

package io.rstore.transport.rdma;

import io.rstore.ErrorCode;

import java.nio.ByteBuffer;

/**
 * A reliable connection's send queue and completion queue, with a verbs queue pair's
 * rules: one-sided READ and WRITE name their local memory as a verbs scatter/gather entry
 * does (address, length, and the lkey of a region registered on the same device) and
 * their remote memory by address and rkey; they complete, in posting order, through
 * {@link #poll} with a work completion status ({@link #SUCCESS}, {@link #LOCAL_PROTECTION_ERROR}, ...).
 * The first work request that fails moves the queue pair to the error state
 * ({@link #failed()}): every one after it is flushed ({@link #FLUSHED}), and so is
 * everything in flight when the peer goes away; only a new queue pair goes on.
 * Posting and polling are the data path: no allocation; they do not block beyond the
 * bound of a full queue. {@link #call} is the control path's RPC (a SEND and its answer).
 * Not thread-safe: the endpoint using it serializes posting and polling.
 */
public interface QueuePair extends AutoCloseable {

    // work completion statuses, numbered as libibverbs' enum ibv_wc_status
    int SUCCESS = 0;
    int LOCAL_LENGTH_ERROR = 1;
    int LOCAL_QP_OPERATION_ERROR = 2; // rxe's answer to an lkey it does not know (mlx5 says LOCAL_PROTECTION_ERROR)
    int LOCAL_PROTECTION_ERROR = 4;
    int FLUSHED = 5;
    int REMOTE_ACCESS_ERROR = 10;
    int RETRY_EXCEEDED = 12;

    /** Work requests that may be in flight at once. */
    int depth();

    /** One-sided read of {@code length} bytes at {@code remoteAddress} (under {@code rkey}) into {@code localAddress} (under {@code lkey}). */
    void postRead(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length);

    /** One-sided write of {@code length} bytes at {@code localAddress} (under {@code lkey}) to {@code remoteAddress} (under {@code rkey}). */
    void postWrite(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length);

    /** Reaps completions without blocking, each to the queue pair's sink; returns how many. */
    int poll();

    /** In the error state: a work request failed or the peer went away; whatever is posted now is flushed. */
    boolean failed();

    /** Sends {@code request} and waits (bounded) for the answer; completions that arrive meanwhile go to the sink. */
    ByteBuffer call(ByteBuffer request, long timeoutMs);

    @Override
    void close();

    /** Receives completions: the work request id and its work completion status. */
    @FunctionalInterface
    interface CompletionSink {
        void completed(long wrId, int status);
    }

    /** What a work completion status means to an RStore caller. */
    static ErrorCode errorCode(int status) {
        return switch (status) {
            case SUCCESS -> ErrorCode.NONE;
            case REMOTE_ACCESS_ERROR -> ErrorCode.UNAUTHORIZED; // the rkey is not (or no longer) valid for that range
            case LOCAL_LENGTH_ERROR, LOCAL_QP_OPERATION_ERROR, LOCAL_PROTECTION_ERROR -> ErrorCode.UNKNOWN; // our local memory was not registered: a bug
            default -> ErrorCode.SERVER_UNAVAILABLE; // flushed, retries exhausted: the connection is gone
        };
    }
}

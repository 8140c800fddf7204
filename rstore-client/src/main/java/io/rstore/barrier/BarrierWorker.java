package io.rstore.barrier;

import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.idle.IdleStrategy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One worker of a global barrier. Each round: {@link #awaitStart(long, long)} (true on
 * START, false on HALT), do the work, fill {@link #area()}, then {@link #finish(long)}.
 * Workers share nothing but the region, so they may live in other processes.
 */
public final class BarrierWorker implements AutoCloseable {
    private final BarrierLayout layout;
    private final int index;
    private final Mapping mapping;
    private final MemorySegment local;
    private final IdleStrategy idle = IdleStrategy.barrier();

    public BarrierWorker(RAddress region, BarrierLayout layout, int index) {
        if (index < 0 || index >= layout.workers()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("worker index " + index + " is not in 0.." + (layout.workers() - 1));
        }
        if (region.length() < layout.totalBytes()) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("a barrier for " + layout.workers() + " workers needs "
                    + layout.totalBytes() + " bytes, the region has " + region.length());
        }
        this.layout = layout;
        this.index = index;
        this.mapping = region.map(0, layout.totalBytes(), MapFlags.NONE);
        this.local = mapping.segment();
    }

    public int index() {
        return index;
    }

    /** This worker's area: filled before {@link #finish}, read by the coordinator. */
    public MemorySegment area() {
        return local.asSlice(layout.workerArea(index), layout.areaBytes());
    }

    /** The coordinator's area, as read when START was seen. */
    public MemorySegment coordinatorArea() {
        return local.asSlice(layout.coordinatorArea(), layout.areaBytes());
    }

    /**
     * Polls the coordinator's flag until START(round) (returns true, with the coordinator's
     * area read) or HALT (returns false). ABORT and the timeout throw.
     */
    public boolean awaitStart(long round, long timeoutMs) {
        byte start = BarrierLayout.round(round);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        idle.reset();
        while (true) {
            mapping.read(layout.coordinatorStatus(), 1);
            byte status = local.get(ValueLayout.JAVA_BYTE, layout.coordinatorStatus());
            if (status == start) {
                if (layout.areaBytes() > 0) {
                    mapping.read(layout.coordinatorArea(), layout.areaBytes());
                }
                return true;
            }
            if (status == BarrierLayout.HALT) {
                return false;
            }
            if (status == BarrierLayout.ABORT) {
                throw ErrorCode.ABORTED.exception("the barrier coordinator aborted the job before round " + round);
            }
            if (System.nanoTime() - deadline > 0) {
                throw ErrorCode.TIMED_OUT.exception("worker " + index + " saw no START of round " + round
                        + " within " + timeoutMs + " ms; is the coordinator running?");
            }
            idle.idle();
        }
    }

    /**
     * Throws ABORTED if the coordinator has aborted the job: one read of its flag, for a
     * worker to ask now and then during a long round rather than learn it at the round's end.
     */
    public void checkNotAborted() {
        mapping.read(layout.coordinatorStatus(), 1);
        if (local.get(ValueLayout.JAVA_BYTE, layout.coordinatorStatus()) == BarrierLayout.ABORT) {
            throw ErrorCode.ABORTED.exception("the barrier coordinator aborted the job during worker " + index + "'s round");
        }
    }

    /**
     * Writes {@code length} bytes of this worker's area from {@code offset} on their own,
     * between rounds or during one (a liveness count, say); the coordinator reads them with
     * the rest at its next poll. Safe beside the worker's own {@link #finish}.
     */
    public void publishAreaPart(long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > layout.areaBytes()) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("bytes " + offset + ".." + (offset + length) + " are not within the " + layout.areaBytes()
                    + "-byte area");
        }
        mapping.write(layout.workerArea(index) + offset, length);
    }

    /** Publishes the area, then, in a separate ordered write, FINISHED(round). */
    public void finish(long round) {
        publish(BarrierLayout.round(round));
    }

    /** Reports failure; the coordinator's wait throws naming this worker. */
    public void fail() {
        publish(BarrierLayout.ERROR);
    }

    private void publish(byte status) {
        if (layout.areaBytes() > 0) {
            mapping.write(layout.workerArea(index), layout.areaBytes());
        }
        local.set(ValueLayout.JAVA_BYTE, layout.workerStatus(index), status);
        mapping.write(layout.workerStatus(index), 1);
    }

    @Override
    public void close() {
        mapping.close();
    }
}

package io.rstore.barrier;

import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.idle.IdleStrategy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The coordinator of a global barrier (a region in RStore shared with N workers). Each
 * round: fill {@link #area()}, {@link #start(long)}, then {@link #awaitRound(long, long)}
 * until every worker reported; read what they wrote with {@link #workerArea(int)}.
 * One thread drives it.
 */
public final class BarrierCoordinator implements AutoCloseable {
    private final BarrierLayout layout;
    private final Mapping mapping;
    private final MemorySegment local;
    private final IdleStrategy idle = IdleStrategy.barrier();

    /** Maps the region (at least {@link BarrierLayout#totalBytes()} bytes) and clears every status. */
    public BarrierCoordinator(RAddress region, BarrierLayout layout) {
        if (region.length() < layout.totalBytes()) {
            throw ErrorCode.OUT_OF_BOUNDS.exception("a barrier for " + layout.workers() + " workers needs "
                    + layout.totalBytes() + " bytes, the region has " + region.length());
        }
        this.layout = layout;
        this.mapping = region.map(0, layout.totalBytes(), MapFlags.NONE);
        this.local = mapping.segment();
        local.fill((byte) 0);
        mapping.write();
    }

    public BarrierLayout layout() {
        return layout;
    }

    /** Local memory for the coordinator's area: what workers read after START. */
    public MemorySegment area() {
        return local.asSlice(layout.coordinatorArea(), layout.areaBytes());
    }

    /** Worker {@code w}'s area as read by the last {@link #awaitRound}. */
    public MemorySegment workerArea(int w) {
        return local.asSlice(layout.workerArea(w), layout.areaBytes());
    }

    /** Publishes the area, then, in a separate ordered write, START(round). */
    public void start(long round) {
        publish(BarrierLayout.round(round));
    }

    /** Tells workers to stop. */
    public void halt() {
        publish(BarrierLayout.HALT);
    }

    /** Tells workers the job failed. */
    public void abort() {
        publish(BarrierLayout.ABORT);
    }

    private void publish(byte status) {
        if (layout.areaBytes() > 0) {
            mapping.write(layout.coordinatorArea(), layout.areaBytes());
        }
        local.set(ValueLayout.JAVA_BYTE, layout.coordinatorStatus(), status);
        mapping.write(layout.coordinatorStatus(), 1);
    }

    /**
     * Waits until every worker reported FINISHED(round). Throws UNKNOWN naming the worker
     * that reported ERROR, or TIMED_OUT naming the workers still missing.
     */
    public void awaitRound(long round, long timeoutMs) {
        awaitRound(round, timeoutMs, () -> { });
    }

    /**
     * As {@link #awaitRound(long, long)}, calling {@code check} between polls: it throws to
     * give up at once, e.g. when a worker's process has exited, which the barrier alone
     * would learn only at the timeout.
     */
    public void awaitRound(long round, long timeoutMs, Runnable check) {
        byte finished = BarrierLayout.round(round);
        long records = layout.workerRecords();
        long bytes = layout.totalBytes() - records;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        idle.reset();
        while (true) {
            mapping.read(records, bytes);
            int done = 0;
            for (int w = 0; w < layout.workers(); w++) {
                byte status = local.get(ValueLayout.JAVA_BYTE, layout.workerStatus(w));
                if (status == finished) {
                    done++;
                } else if (status == BarrierLayout.ERROR) {
                    throw ErrorCode.UNKNOWN.exception("barrier worker " + w + " reported an error in round " + round);
                }
            }
            if (done == layout.workers()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw ErrorCode.TIMED_OUT.exception("barrier round " + round + ": workers " + missing(finished)
                        + " did not finish within " + timeoutMs + " ms");
            }
            check.run();
            idle.idle();
        }
    }

    private String missing(byte finished) {
        StringBuilder out = new StringBuilder();
        for (int w = 0; w < layout.workers(); w++) {
            if (local.get(ValueLayout.JAVA_BYTE, layout.workerStatus(w)) != finished) {
                out.append(out.isEmpty() ? "" : ",").append(w);
            }
        }
        return out.toString();
    }

    @Override
    public void close() {
        mapping.close();
    }
}

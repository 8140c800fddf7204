package io.carafe.pregel;

import io.rstore.barrier.BarrierCoordinator;
import io.rstore.barrier.BarrierWorker;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Liveness of a job's workers, apart from their supersteps: each worker's process raises a
 * count in its barrier area every {@link #INTERVAL_MS} ms ({@link #beat}, on a thread of its
 * own), and the coordinator, between its barrier polls, fails the job when a worker's count
 * has not moved for {@link #STALL_MS} ms. A worker whose process was stopped (SIGSTOP), hangs
 * as a whole or is cut off from the cluster is then named within seconds, not at the
 * superstep timeout, and before the workers waiting on it time out in turn and take the blame.
 * The clock starts at a worker's first beat: until then (a worker process's JVM starting)
 * the superstep timeout bounds it, as it bounds every round.
 */
final class Heartbeats {
    /** How often a worker's count is raised and written. */
    static final long INTERVAL_MS = 1_000;
    /** How long a count may stand still before its worker counts as stalled: ten beats, beyond a long collector pause. */
    static final long STALL_MS = 10_000;

    private final long[] seen;
    private final long[] since; // nanoTime when seen[w] was first seen
    private final long stallNanos;
    private final IntFunction<String> names;

    /** Watches {@code workers} workers, naming worker w as {@code names} says (with its process id, say). */
    Heartbeats(int workers, long superstepTimeoutMs, IntFunction<String> names) {
        this.seen = new long[workers];
        this.since = new long[workers];
        this.stallNanos = Math.min(STALL_MS, superstepTimeoutMs) * 1_000_000;
        this.names = names;
        Arrays.fill(seen, -1);
    }

    /** Between barrier polls (the workers' areas as the last poll read them): throws if a worker stalled; {@code superstep} -1 is setup. */
    void check(BarrierCoordinator coordinator, long superstep) {
        long now = System.nanoTime();
        for (int w = 0; w < seen.length; w++) {
            long count = BarrierAreas.getLong(coordinator.workerArea(w), BarrierAreas.HEARTBEAT);
            if (count == 0) {
                continue; // not beating yet: a worker process still starting is bounded by the superstep timeout, as before
            }
            if (count != seen[w]) {
                seen[w] = count;
                since[w] = now;
            } else if (now - since[w] > stallNanos) {
                throw new PregelException(names.apply(w) + " sent no heartbeat for " + (now - since[w]) / 1_000_000_000 + " s "
                        + (superstep < 0 ? "during setup" : "in superstep " + superstep) + ": its process is stopped (SIGSTOP?), hung as a whole,"
                        + " or cut off from the cluster. The job was stopped; look at that worker's host and process", null);
            }
        }
    }

    /** A worker's heartbeat, stopped by {@link #close}. */
    interface Beat extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Starts raising {@code barrier}'s worker's count every {@link #INTERVAL_MS} ms, on a
     * daemon thread, until the returned handle is closed (before the barrier is).
     */
    static Beat beat(BarrierWorker barrier) {
        MemorySegment area = barrier.area();
        CountDownLatch stop = new CountDownLatch(1); // not an interrupt: one could close the transport's channel under a write
        Thread thread = Thread.ofPlatform().daemon().name("carafe-heartbeat-" + barrier.index()).start(() -> {
            try {
                for (long count = 1; ; count++) {
                    BarrierAreas.putLong(area, BarrierAreas.HEARTBEAT, count);
                    barrier.publishAreaPart(BarrierAreas.HEARTBEAT, 8);
                    if (stop.await(INTERVAL_MS, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                }
            } catch (InterruptedException | RuntimeException e) {
                // the cluster is gone, or the process ends: the worker's own calls fail and say why; a silent heartbeat says the rest
            }
        });
        return () -> {
            stop.countDown();
            try {
                thread.join(INTERVAL_MS + 5_000); // at most one write in flight, itself bounded by the operation timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }
}

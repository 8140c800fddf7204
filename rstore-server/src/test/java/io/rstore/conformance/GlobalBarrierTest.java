package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.barrier.BarrierCoordinator;
import io.rstore.barrier.BarrierLayout;
import io.rstore.barrier.BarrierWorker;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static io.rstore.conformance.Expect.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GlobalBarrierTest {
    private static final int WORKERS = 8;
    private static final int ROUNDS = 300;

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    @Timeout(120)
    void shouldReleaseEveryRoundOnlyAfterAllWorkersFinished(String transport) throws Exception {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            BarrierLayout layout = new BarrierLayout(WORKERS, 16);
            Namespace ns = cluster.client().createNamespace("gbs");
            RAddress region = ns.alloc(layout.totalBytes(), AllocFlags.GROW | AllocFlags.ZERO);
            AtomicLong finishedWork = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
            List<Future<Integer>> workers = new ArrayList<>();
            try (BarrierCoordinator coordinator = new BarrierCoordinator(region, layout)) {
                for (int w = 0; w < WORKERS; w++) {
                    int me = w;
                    RStore client = cluster.client(); // each worker its own session, as if in its own process
                    workers.add(pool.submit(() -> {
                        RAddress mine = client.joinNamespace("gbs").raddress(region.address());
                        try (BarrierWorker worker = new BarrierWorker(mine, layout, me)) {
                            int rounds = 0;
                            for (long round = 0; worker.awaitStart(round, 10_000); round++) {
                                // no early release: all of the previous round finished, and this worker has not
                                long finished = finishedWork.get();
                                assertTrue(finished >= round * WORKERS && finished < (round + 1) * WORKERS,
                                        "worker " + me + " released early into round " + round + " (" + finished + " finished)");
                                assertEquals(round, worker.coordinatorArea().get(ValueLayout.JAVA_LONG, 0), "coordinator data before its flag");
                                worker.area().set(ValueLayout.JAVA_LONG, 0, round * 1000 + me);
                                finishedWork.incrementAndGet();
                                worker.finish(round);
                                rounds++;
                            }
                            return rounds;
                        }
                    }));
                }
                for (long round = 0; round < ROUNDS; round++) {
                    coordinator.area().set(ValueLayout.JAVA_LONG, 0, round);
                    coordinator.start(round);
                    coordinator.awaitRound(round, 10_000);
                    assertEquals((round + 1) * WORKERS, finishedWork.get(), "no lost worker in round " + round);
                    for (int w = 0; w < WORKERS; w++) {
                        assertEquals(round * 1000 + w, coordinator.workerArea(w).get(ValueLayout.JAVA_LONG, 0), "worker data before its flag");
                    }
                }
                coordinator.halt();
                for (Future<Integer> f : workers) {
                    assertEquals(ROUNDS, f.get(30, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    @Timeout(60)
    void shouldNameTheWorkerThatFailedOrNeverFinished(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            BarrierLayout layout = new BarrierLayout(3, 0);
            RAddress region = cluster.client().createNamespace("gbs").alloc(layout.totalBytes(), AllocFlags.GROW);
            try (BarrierCoordinator coordinator = new BarrierCoordinator(region, layout);
                 BarrierWorker w0 = new BarrierWorker(region, layout, 0);
                 BarrierWorker w2 = new BarrierWorker(region, layout, 2)) {
                coordinator.start(0);
                assertTrue(w0.awaitStart(0, 1_000));
                w0.finish(0);
                w2.finish(0);
                var timedOut = error(ErrorCode.TIMED_OUT, () -> coordinator.awaitRound(0, 50));
                assertTrue(timedOut.getMessage().contains("workers 1 "), timedOut.getMessage());
                w2.fail();
                var failed = error(ErrorCode.UNKNOWN, () -> coordinator.awaitRound(0, 1_000));
                assertTrue(failed.getMessage().contains("worker 2"), failed.getMessage());
                error(ErrorCode.TIMED_OUT, () -> new BarrierWorker(region, layout, 1).awaitStart(7, 20));
                coordinator.abort();
                error(ErrorCode.ABORTED, () -> w0.awaitStart(1, 1_000));
                coordinator.halt();
                assertFalse(w0.awaitStart(1, 1_000));
                error(ErrorCode.INVALID_ARGUMENT, () -> new BarrierWorker(region, layout, 3));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseARegionTooSmallForItsWorkers(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            BarrierLayout layout = new BarrierLayout(4, 100);
            assertEquals(128, layout.recordBytes());
            assertEquals(5 * 128, layout.totalBytes());
            RAddress small = cluster.client().createNamespace("s").alloc(layout.totalBytes() - 1, AllocFlags.GROW);
            error(ErrorCode.OUT_OF_BOUNDS, () -> new BarrierCoordinator(small, layout));
        }
    }
}

package io.rstore;

import io.rstore.barrier.BarrierCoordinator;
import io.rstore.barrier.BarrierLayout;
import io.rstore.barrier.BarrierWorker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The examples of README.md and docs/rstore.md, run as written, so the docs stay true. */
class DocumentationExamplesTest {

    @Test
    void shouldRunTheReadmeExample() {
        long seen;
        try (RStore rstore = RStore.embedded()) {
            Namespace ns = rstore.createNamespace("demo");
            RAddress segment = ns.alloc(1 << 20, AllocFlags.GROW);
            try (Mapping m = segment.map(MapFlags.NONE)) {
                m.segment().set(ValueLayout.JAVA_LONG, 0, 42);
                m.write(0, 8);
                m.segment().set(ValueLayout.JAVA_LONG, 0, 0);
                m.read();
                seen = m.segment().get(ValueLayout.JAVA_LONG, 0);
            }
        }
        assertEquals(42, seen);
    }

    @Test
    @Timeout(30)
    void shouldRunTheBarrierExample() throws Exception {
        int workers = 2;
        int rounds = 50;
        try (RStore rstore = RStore.embedded()) {
            Namespace ns = rstore.createNamespace("barrier-demo");
            BarrierLayout layout = new BarrierLayout(workers, 16);
            RAddress region = ns.alloc(layout.totalBytes(), AllocFlags.GROW | AllocFlags.ZERO);
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(workers);
            try (pool; BarrierCoordinator c = new BarrierCoordinator(region, layout)) {
                CompletableFuture<?>[] running = new CompletableFuture<?>[workers];
                for (int i = 0; i < workers; i++) {
                    int index = i;
                    // a thread each: pollers on a shared pool (the common pool has 1 thread on 2 cores) starve each other
                    running[i] = CompletableFuture.runAsync(() -> {
                        try (BarrierWorker w = new BarrierWorker(region, layout, index)) {
                            for (long k = 0; w.awaitStart(k, 10_000); k++) {
                                w.area().set(ValueLayout.JAVA_LONG, 0, work(w.coordinatorArea()));
                                w.finish(k);
                            }
                        }
                    }, pool);
                }
                for (long k = 0; k < rounds; k++) {
                    c.area().set(ValueLayout.JAVA_LONG, 0, k);
                    c.start(k);
                    c.awaitRound(k, 10_000);
                    for (int i = 0; i < workers; i++) {
                        assertEquals(2 * k, c.workerArea(i).get(ValueLayout.JAVA_LONG, 0));
                    }
                }
                c.halt();
                CompletableFuture.allOf(running).get(10, TimeUnit.SECONDS);
            }
        }
    }

    private static long work(MemorySegment coordinatorArea) {
        return 2 * coordinatorArea.get(ValueLayout.JAVA_LONG, 0);
    }
}

package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.rstore.conformance.TestCluster.CHUNK;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Threads allocating, writing, re-reading and freeing in one namespace at once: segments never overlap. */
class ConcurrencyTest {

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    @Timeout(120)
    void shouldNeverHandOutOverlappingSegmentsUnderConcurrentUse(String transport) throws Exception {
        int threads = 6;
        try (TestCluster cluster = TestCluster.start(transport, 3)) {
            cluster.client().createNamespace("hammer").reserve(16 * CHUNK);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                Namespace ns = cluster.client().joinNamespace("hammer");
                results.add(pool.submit(() -> {
                    Random random = new Random(me);
                    List<RAddress> live = new ArrayList<>();
                    int checked = 0;
                    for (int i = 0; i < 400; i++) {
                        if (live.size() > 8 || (!live.isEmpty() && random.nextBoolean())) {
                            RAddress seg = live.remove(random.nextInt(live.size()));
                            try (Mapping m = seg.map(MapFlags.PREFETCH)) {
                                long tag = ((long) me << 32) | seg.address();
                                for (long at = 0; at + 8 <= m.length(); at += 8) {
                                    assertEquals(tag, m.segment().get(ValueLayout.JAVA_LONG, at), "segment " + seg + " was overwritten");
                                }
                                checked++;
                            }
                            ns.free(seg);
                        } else {
                            RAddress seg = ns.alloc(64 * (1 + random.nextInt(CHUNK > 4096 ? 2000 : 10)), AllocFlags.GROW);
                            try (Mapping m = seg.map(MapFlags.NONE)) {
                                long tag = ((long) me << 32) | seg.address();
                                for (long at = 0; at + 8 <= m.length(); at += 8) {
                                    m.segment().set(ValueLayout.JAVA_LONG, at, tag);
                                }
                                m.write();
                            }
                            live.add(seg);
                        }
                    }
                    return checked;
                }));
            }
            try {
                for (Future<Integer> f : results) {
                    f.get(100L * TestCluster.TIME_SCALE, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}

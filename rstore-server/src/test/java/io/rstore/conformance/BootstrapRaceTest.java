package io.rstore.conformance;

import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rstore.conformance.TestCluster.CHUNK;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Many clients booting a namespace at once: one creates it, one allocates the init segment, all share it. */
class BootstrapRaceTest {
    private static final int CLIENTS = 8;
    private static final int ROUNDS = 60;
    private static final long INIT_BYTES = 512;

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    @Timeout(120)
    void shouldLetExactlyOneRacingClientCreateTheInitSegment(String transport) throws Exception {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            List<RStore> clients = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(cluster.client());
            }
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            CyclicBarrier go = new CyclicBarrier(CLIENTS);
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    String name = "boot-" + round;
                    AtomicInteger creators = new AtomicInteger();
                    List<Future<?>> done = new ArrayList<>();
                    for (int c = 0; c < CLIENTS; c++) {
                        int me = c;
                        RStore client = clients.get(c);
                        done.add(pool.submit(() -> {
                            go.await(10, TimeUnit.SECONDS);
                            Namespace ns;
                            try {
                                ns = client.createNamespace(name);
                                creators.incrementAndGet();
                            } catch (RStoreException e) {
                                assertEquals(ErrorCode.NAMESPACE_EXISTS, e.code());
                                ns = client.joinNamespace(name);
                            }
                            RAddress init = ns.bootstrap(INIT_BYTES);
                            assertEquals(RStore.RSTORE_INIT_RADDRESS, init.address());
                            try (Mapping m = init.map(MapFlags.NONE)) {
                                m.segment().set(ValueLayout.JAVA_LONG, 8L * me, me + 1);
                                m.write(8L * me, 8);
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : done) {
                        f.get(30, TimeUnit.SECONDS);
                    }
                    assertEquals(1, creators.get(), "round " + round + ": namespace creators");
                    Namespace ns = clients.getFirst().joinNamespace(name);
                    var info = ns.info();
                    assertEquals(1, info.segments(), "round " + round + ": exactly one init segment");
                    assertEquals(CHUNK, info.reservedBytes(), "round " + round + ": losers reserved nothing");
                    try (Mapping m = ns.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.PREFETCH)) {
                        for (int c = 0; c < CLIENTS; c++) {
                            assertEquals(c + 1, m.segment().get(ValueLayout.JAVA_LONG, 8L * c), "round " + round + ": client " + c + " wrote elsewhere");
                        }
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}

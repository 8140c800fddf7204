package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.barrier.BarrierCoordinator;
import io.rstore.barrier.BarrierLayout;
import io.rstore.barrier.BarrierWorker;
import io.rstore.protocol.ServerInfo;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;

/**
 * One client of the multi-host test (its own process, its own network namespace): client
 * 0 lays out the namespace and also coordinates the barrier; both write their half of a
 * parity region each round and, after the barrier, check the other's half from the round
 * before. Prints one "ok" line, or fails with a stack trace and exit code 1.
 */
public final class MultiHostClient {
    static final long REGION = 2 << 20;        // bytes each client writes per round
    static final int ROUNDS = 4;
    private static final long MAGIC = 0x4D554C5449484F53L;
    private static final long TIMEOUT_MS = 30_000;

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        int me = Integer.parseInt(args[1]);
        try (RStore rstore = RStore.connect(uri, RStoreSettings.defaults().withOperationTimeoutMs(10_000))) {
            BarrierLayout layout = new BarrierLayout(2, 64);
            Namespace ns = me == 0 ? rstore.createNamespace("multihost") : join(rstore);
            if (me == 0) {
                RAddress directory = ns.bootstrap(64);
                RAddress data = ns.alloc(4 * REGION, AllocFlags.GROW | AllocFlags.ZERO); // [parity][client], over both servers
                RAddress barrier = ns.alloc(layout.totalBytes(), AllocFlags.GROW | AllocFlags.ZERO);
                try (Mapping d = directory.map(MapFlags.NONE)) {
                    d.segment().set(ValueLayout.JAVA_LONG, 8, data.address());
                    d.segment().set(ValueLayout.JAVA_LONG, 16, barrier.address());
                    d.write(8, 16);
                    d.segment().set(ValueLayout.JAVA_LONG, 0, MAGIC);
                    d.write(0, 8); // last: the others wait for it
                }
            }
            long[] addresses = awaitDirectory(ns);
            CompletableFuture<Void> coordinating = me == 0
                    ? CompletableFuture.runAsync(() -> coordinate(ns.raddress(addresses[1]), layout)) : CompletableFuture.completedFuture(null);
            try (Mapping data = ns.raddress(addresses[0]).map(MapFlags.NONE);
                 BarrierWorker barrier = new BarrierWorker(ns.raddress(addresses[1]), layout, me)) {
                for (int round = 0; round <= ROUNDS; round++) {
                    if (!barrier.awaitStart(round, TIMEOUT_MS)) {
                        throw new IllegalStateException("halted before round " + round);
                    }
                    if (round > 0) { // the other's half of the round before, written before it finished that round
                        long at = region(round - 1, 1 - me);
                        data.read(at, REGION);
                        for (long i = 0; i < REGION; i += 8) {
                            long want = pattern(round - 1, 1 - me, i);
                            long got = data.segment().get(ValueLayout.JAVA_LONG, at + i);
                            if (got != want) {
                                throw new AssertionError("client " + me + " round " + round + ": byte " + i + " of client " + (1 - me)
                                        + "'s region holds " + got + ", not " + want);
                            }
                        }
                    }
                    if (round < ROUNDS) {
                        long at = region(round, me);
                        for (long i = 0; i < REGION; i += 8) {
                            data.segment().set(ValueLayout.JAVA_LONG, at + i, pattern(round, me, i));
                        }
                        data.write(at, REGION);
                    }
                    barrier.finish(round);
                }
            }
            coordinating.join();
            StringBuilder routes = new StringBuilder();
            for (ServerInfo s : rstore.servers()) {
                routes.append(' ').append(s.address()).append('=').append(rstore.transportTo(s));
            }
            System.out.println("client " + me + " ok: " + ROUNDS + " rounds through the barrier, data checked;" + routes);
        }
    }

    private static long region(int round, int client) {
        return ((round & 1) * 2L + client) * REGION;
    }

    private static long pattern(int round, int client, long offset) {
        return (round + 1L) * 1_000_003L + client * 7_919L + offset * 31;
    }

    private static void coordinate(RAddress barrierSegment, BarrierLayout layout) {
        try (BarrierCoordinator coordinator = new BarrierCoordinator(barrierSegment, layout)) {
            for (int round = 0; round <= ROUNDS; round++) {
                coordinator.start(round);
                coordinator.awaitRound(round, TIMEOUT_MS);
            }
            coordinator.halt();
        }
    }

    private static Namespace join(RStore rstore) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (true) {
            try {
                return rstore.joinNamespace("multihost");
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.NO_SUCH_NAMESPACE || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }

    private static long[] awaitDirectory(Namespace ns) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        while (true) {
            try (Mapping d = ns.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.NONE)) {
                d.read();
                if (d.segment().get(ValueLayout.JAVA_LONG, 0) == MAGIC) {
                    return new long[] {d.segment().get(ValueLayout.JAVA_LONG, 8), d.segment().get(ValueLayout.JAVA_LONG, 16)};
                }
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.INVALID_ADDRESS) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("client 0 did not publish the directory within " + TIMEOUT_MS + " ms");
            }
            Thread.sleep(20);
        }
    }
}

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
import io.rstore.transport.rdma.RdmaEnvironment;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A memory server's process SIGKILLed while a client reads from it, over each transport
 * that reaches a daemon: the read in flight and every later one of that server's bytes
 * fail with SERVER_UNAVAILABLE within seconds, far inside the 30 s operation timeout (a
 * reconnect to the dead server is bounded, and not retried by every read), while the
 * other server's bytes read on.
 */
@Timeout(180)
class ServerKilledTest {
    private static final long CHUNK = 1 << 20;
    /** Under bin/test-rdma's emulation bounds stretch, but never to the 31 s the failure took. */
    private static final int SCALE = Integer.parseInt(System.getenv().getOrDefault("RSTORE_TEST_TIME_SCALE", "1"));
    private static final long BOUND_NANOS = TimeUnit.SECONDS.toNanos(Math.min(8L * SCALE, 20));
    /** The address of a real RDMA device's interface, for disni (a soft device does not work on 127.0.0.1). */
    private static final String RDMA_ADDRESS = System.getenv("RSTORE_RDMA_ADDRESS");
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @TempDir
    Path dir;

    /**
     * rstore+tcp, rstore (shm) and rstore+rdma on the emulated device; disni (rstore+rdma on
     * a real device) where there is one. RSTORE_TEST_TRANSPORTS picks some, as for the
     * conformance suite: bin/test-rdma's guest runs disni alone.
     */
    static Stream<String> transports() {
        String chosen = System.getenv("RSTORE_TEST_TRANSPORTS");
        if (chosen != null && !chosen.isBlank()) {
            return Stream.of(chosen.split(",")).map(String::trim).filter(t -> !t.equals("inproc"));
        }
        boolean device = RDMA_ADDRESS != null && !RDMA_ADDRESS.isEmpty() && RdmaEnvironment.unavailable() == null;
        return device ? Stream.of("tcp", "shm", "rdma", "disni") : Stream.of("tcp", "shm", "rdma");
    }

    @ParameterizedTest
    @MethodSource("transports")
    void shouldFailTheDeadServersReadsWithinSecondsAndServeTheOthers(String transport) throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        boolean disni = transport.equals("disni");
        String host = disni ? RDMA_ADDRESS : "127.0.0.1";
        String device = disni ? "disni" : "emulated";
        Path conf = Files.writeString(dir.resolve("rstore.conf"), """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir = %s
                rstore.rdma.device = %s
                rstore.master.rdma.port = 0
                rstore.heartbeat = 200ms
                rstore.insecure = true
                """.formatted(dir.resolve("shm"), device));
        long startBound = 60L * SCALE;
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--bind", host, "--port",
                Integer.toString(port));
        int rdmaPort = Integer.parseInt(JavaProcesses.awaitLine(master, "serving on " + Pattern.quote(host) + ":" + port + " .*" + device
                + " device at port (\\d+)", startBound).group(1));
        List<Process> servers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Process server = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", host + ":" + port,
                    "--bind", host, "--advertise", host);
            JavaProcesses.awaitLine(server, "memory server " + i + " serving", startBound);
            servers.add(server);
        }
        String uri = switch (transport) {
            case "tcp" -> "rstore+tcp://" + host + ":" + port;
            case "shm" -> "rstore://" + host + ":" + port;
            default -> "rstore+rdma://" + host + ":" + rdmaPort + "?device=" + device;
        };
        try (RStore rstore = RStore.connect(uri, RStoreSettings.defaults().withOperationTimeoutMs(30_000))) {
            Namespace ns = rstore.createNamespace("killed", 0);
            RAddress segment = ns.alloc(4 * CHUNK, AllocFlags.GROW); // chunks striped over both servers
            List<Mapping> chunks = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Mapping m = segment.map(i * CHUNK, CHUNK, MapFlags.NONE);
                m.write();
                chunks.add(m);
            }
            try (Mapping whole = segment.map(MapFlags.NONE)) {
                CompletableFuture<RStoreException> reading = CompletableFuture.supplyAsync(() -> {
                    while (true) {
                        try {
                            whole.read();
                        } catch (RStoreException e) {
                            return e;
                        }
                    }
                });
                Thread.sleep(200); // reads in flight
                servers.get(1).destroyForcibly(); // SIGKILL
                long killed = System.nanoTime();
                RStoreException inFlight = reading.get(30, TimeUnit.SECONDS);
                assertEquals(ErrorCode.SERVER_UNAVAILABLE, inFlight.code(), inFlight.getMessage());
                assertTrue(System.nanoTime() - killed < BOUND_NANOS, "the read in flight failed " + (System.nanoTime() - killed) / 1_000_000 + " ms after the kill");
            }
            int failed = 0;
            int served = 0;
            for (int round = 0; round < 3; round++) { // again and again: never the operation timeout
                for (Mapping m : chunks) {
                    long start = System.nanoTime();
                    try {
                        m.read();
                        served++;
                    } catch (RStoreException e) {
                        assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
                        failed++;
                    }
                    long took = System.nanoTime() - start;
                    assertTrue(took < BOUND_NANOS, "a read after the kill took " + took / 1_000_000 + " ms (round " + round + ")");
                }
            }
            assertEquals(6, failed, "the dead server's two chunks fail, each time");
            assertEquals(6, served, "the live server's two chunks read on");
            JavaProcesses.awaitLine(master, "WARN rstore master - memory server 1 at .* stopped answering; marked dead \\(it keeps no persistence"
                    + " directory: the data of its chunks is lost\\)", 20);
        }
    }
}

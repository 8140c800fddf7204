package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.NamespaceFlags;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A durable memory server SIGKILLed and started again on its directory, on its port or on
 * another: a client that kept its mappings over the server's death reads and writes through
 * them again, the persisted bytes intact, without connecting anew (its endpoint replaces the
 * broken connection, over tcp and rdma at the address the master gives when the old one does
 * not answer, over rdma with the chunks resolved anew), within seconds of the server being
 * back; while it is down, each read fails with SERVER_UNAVAILABLE at once (over shm, once the
 * dead server's heartbeat has lapsed).
 */
@Timeout(180)
class ServerRestartedTest {
    private static final long CHUNK = 1 << 20;
    private static final long BACK_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(10);
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private Process server(Path conf, int masterPort, int serverPort) throws Exception {
        Process server = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "127.0.0.1:" + masterPort,
                "--port", Integer.toString(serverPort), "--persistence-dir", dir.resolve("server").toString());
        JavaProcesses.awaitLine(server, "memory server 0 serving", 60);
        return server;
    }

    @ParameterizedTest
    // rstore: shm, the durable chunk files mapped by the client itself; rstore+rdma: the emulated device, whose listener takes a new port at each start
    @CsvSource({"rstore+tcp, false", "rstore, false", "rstore+rdma, false", "rstore+tcp, true", "rstore, true", "rstore+rdma, true"})
    void shouldReadAndWriteThroughTheSameMappingsOnceTheServerIsBack(String scheme, boolean onAnotherPort) throws Exception {
        int masterPort = freePort();
        int serverPort = freePort();
        Path conf = Files.writeString(dir.resolve("rstore.conf"), """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir =
                rstore.heartbeat = 200ms
                rstore.insecure = true
                rstore.rdma.device = emulated
                rstore.master.rdma.port = 0
                """);
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--port", Integer.toString(masterPort),
                "--persistence-dir", dir.resolve("master").toString());
        String rdmaPort = JavaProcesses.awaitLine(master, "serving on 127\\.0\\.0\\.1:" + masterPort + " .*emulated device at port (\\d+)", 60).group(1);
        Process server = server(conf, masterPort, serverPort);
        String uri = scheme.equals("rstore+rdma") ? "rstore+rdma://127.0.0.1:" + rdmaPort + "?device=emulated" : scheme + "://127.0.0.1:" + masterPort;
        try (RStore rstore = RStore.connect(uri, RStoreSettings.defaults().withOperationTimeoutMs(30_000));
             Arena arena = Arena.ofConfined()) {
            assertEquals(Map.of("rstore+tcp", "tcp", "rstore", "shm", "rstore+rdma", "rdma").get(scheme), rstore.transportTo(rstore.servers().get(0)));
            Namespace ns = rstore.createNamespace("restarted", NamespaceFlags.DURABLE);
            RAddress segment = ns.alloc(2 * CHUNK, AllocFlags.GROW);
            try (Mapping m = segment.map(MapFlags.NONE)) {
                MemorySegment written = arena.allocate(m.length());
                for (long at = 0; at < written.byteSize(); at += 8) {
                    written.set(ValueLayout.JAVA_LONG, at, at * 0x9E3779B97F4A7C15L);
                }
                MemorySegment.copy(written, 0, m.segment(), 0, m.length());
                m.write();
                m.persist(0, m.length());

                server.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
                long killed = System.nanoTime();
                while (true) { // tcp fails at once; shm once the server's heartbeat is older than its lease
                    try {
                        m.read();
                    } catch (RStoreException e) {
                        assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
                        break;
                    }
                    assertTrue(System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(6), "reads went on 6 s after the kill");
                    Thread.sleep(50);
                }
                for (int i = 0; i < 3; i++) {
                    long start = System.nanoTime();
                    RStoreException down = org.junit.jupiter.api.Assertions.assertThrows(RStoreException.class, m::read);
                    assertEquals(ErrorCode.SERVER_UNAVAILABLE, down.code(), down.getMessage());
                    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(6), "a read of the dead server took "
                            + (System.nanoTime() - start) / 1_000_000 + " ms");
                }

                int backOn = onAnotherPort ? freePort() : serverPort;
                server(conf, masterPort, backOn);
                long back = System.nanoTime();
                m.segment().fill((byte) 0);
                RStoreException last = null;
                while (true) {
                    try {
                        m.read();
                        break;
                    } catch (RStoreException e) {
                        assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
                        last = e;
                    }
                    assertTrue(System.nanoTime() - back < BACK_WITHIN_NANOS, "the same mapping still failed "
                            + (System.nanoTime() - back) / 1_000_000 + " ms after the server was back: " + last.getMessage());
                    Thread.sleep(100);
                }
                assertEquals(-1, written.mismatch(m.segment()), "the persisted bytes, read through the mapping made before the kill");
                m.segment().set(ValueLayout.JAVA_LONG, 8, 42);
                m.write(8, 8);
                try (Mapping again = segment.map(MapFlags.NONE)) {
                    again.read();
                    assertEquals(42, again.segment().get(ValueLayout.JAVA_LONG, 8), "a write through the old mapping, read through a new one");
                }
                assertTrue(rstore.servers().get(0).address().contains(":" + backOn + "/"), "the master knows the server at the port it came back on: "
                        + rstore.servers().get(0).address());
            }
        }
    }
}

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
import io.rstore.protocol.ServerInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A master daemon and memory server daemons as separate processes, and what clients see when each of them is killed. */
@Timeout(180)
class DaemonsTest {
    private static final long CHUNK = 1 << 20;
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @TempDir
    Path dir;

    /**
     * rstore+tcp: data over tcp; rstore (auto): through the servers' chunk files, as they are
     * on this host; rstore+rdma: control calls over SEND/RECV to the master's emulated RDMA
     * device, reads and writes one-sided over the servers'.
     */
    @ParameterizedTest
    @ValueSource(strings = {"rstore+tcp", "rstore", "rstore+rdma"})
    void shouldKeepMappedDataReachableWhenTheMasterDiesAndFailCleanlyWhenAServerDies(String scheme) throws Exception {
        Path shm = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : dir, "rstore-daemons-");
        try {
            run(scheme, shm);
        } finally {
            try (var left = Files.walk(shm)) {
                left.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * bin/rstore starts a daemon with what --print-jvm-options prints on stdout, so it prints
     * the options and nothing else, even when the configuration warns (an open address
     * with --insecure): the real run logs the warning.
     */
    @org.junit.jupiter.api.Test
    void shouldPrintOnlyTheJvmOptionsEvenWhenTheConfigurationWarns() throws Exception {
        Path conf = Files.writeString(dir.resolve("rstore.conf"), "rstore.rdma.device = none\nrstore.server.capacity = 1GiB\n");
        String options = "-Xmx\\d+m -XX:MaxDirectMemorySize=(\\d+)m";
        for (String[] args : new String[][] {
                {"master", "--conf", conf.toString(), "--bind", "0.0.0.0", "--insecure", "--print-jvm-options"},
                {"server", "--conf", conf.toString(), "--bind", "0.0.0.0", "--insecure", "--print-jvm-options"},
                {"serve", "--servers", "2", "--capacity", "1GiB", "--bind", "0.0.0.0", "--insecure", "--print-jvm-options"}}) {
            Process p = processes.start("io.rstore.cli.RStoreCli", args);
            String printed = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "still running: " + String.join(" ", args));
            assertEquals(0, p.exitValue(), String.join(" ", args) + " printed " + printed);
            assertTrue(printed.matches(options + "\n"), String.join(" ", args) + " printed " + printed);
        }
    }

    /** A port another process holds: the daemon exits at once with CANNOT_LISTEN and the port in one line, not an "unexpected error". */
    @org.junit.jupiter.api.Test
    void shouldSayTheRStoreDaemonCannotListenOnABusyPort() throws Exception {
        try (java.net.ServerSocket busy = new java.net.ServerSocket(0, 50, java.net.InetAddress.getByName("127.0.0.1"))) {
            Path conf = Files.writeString(dir.resolve("busy.conf"), "rstore.rdma.device = none\n");
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED",
                    "-cp", System.getProperty("java.class.path"), "io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--port",
                    Integer.toString(busy.getLocalPort())).redirectErrorStream(true).start();
            String printed = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertTrue(p.exitValue() != 0, printed);
            assertTrue(printed.contains("CANNOT_LISTEN: the master cannot listen on /127.0.0.1:" + busy.getLocalPort() + ": Address already in use"),
                    printed);
            assertTrue(!printed.contains("unexpected error"), printed);
        }
    }

    /**
     * The master's RDMA listener gives authenticated queue pairs their full-size message
     * buffers out of rstore.rdma.message-memory: with room for one, a second client is
     * refused OVERLOADED naming the setting, and gets in once the first has gone.
     */
    @org.junit.jupiter.api.Test
    void shouldRefuseAnRdmaClientPastTheMessageMemoryNamingTheSetting() throws Exception {
        Path conf = Files.writeString(dir.resolve("rdma.conf"), """
                rstore.rdma.device = emulated
                rstore.master.rdma.port = 0
                rstore.rdma.message-memory = 4MiB
                """);
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--bind", "127.0.0.1", "--port", "0");
        java.util.regex.Matcher serving = JavaProcesses.awaitLine(master, "serving on 127\\.0\\.0\\.1:(\\d+) .*emulated device at port (\\d+)", 60);
        String uri = "rstore+rdma://127.0.0.1:" + serving.group(2) + "?device=emulated";
        RStoreSettings settings = RStoreSettings.defaults().withOperationTimeoutMs(5_000);
        try (RStore first = RStore.connect(uri, settings)) {
            first.createNamespace("first"); // a frame over its full-size buffers
            RStoreException refused = assertThrows(RStoreException.class, () -> RStore.connect(uri, settings).close());
            assertEquals(ErrorCode.OVERLOADED, refused.code(), refused.getMessage());
            assertTrue(refused.getMessage().contains("rstore.rdma.message-memory"), refused.getMessage());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // the first's queue pair ends on the master's side soon after
        while (true) {
            try (RStore again = RStore.connect(uri, settings)) {
                assertTrue(again.namespaces().stream().anyMatch(ns -> ns.name().equals("first")), "served once the first client's share came back");
                break;
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.OVERLOADED || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private void run(String scheme, Path shm) throws Exception {
        Path conf = dir.resolve("rstore.conf");
        Files.writeString(conf, """
                # a test cluster: small chunks, a quick heartbeat
                rstore.chunk.size = 1MiB
                rstore.heartbeat = 200ms
                rstore.server.capacity = 64MiB
                rstore.timeout = 5s
                rstore.shm.dir = %s
                rstore.rdma.device = emulated
                rstore.master.rdma.port = 0
                """.formatted(shm));
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--bind", "127.0.0.1", "--port", "0");
        java.util.regex.Matcher serving = JavaProcesses.awaitLine(master, "serving on 127\\.0\\.0\\.1:(\\d+) .*emulated device at port (\\d+)", 60);
        int port = Integer.parseInt(serving.group(1));
        int rdmaPort = Integer.parseInt(serving.group(2));
        List<Process> servers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Process server = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "127.0.0.1:" + port,
                    "--bind", "127.0.0.1");
            assertEquals(Integer.toString(i), JavaProcesses.awaitLine(server, "memory server (\\d+) serving 64 MiB at rstore\\+tcp://127\\.0\\.0\\.1:", 60).group(1));
            servers.add(server);
        }

        String uri = scheme.equals("rstore+rdma") ? "rstore+rdma://127.0.0.1:" + rdmaPort + "?device=emulated" : scheme + "://127.0.0.1:" + port;
        try (RStore client = RStore.connect(uri, RStoreSettings.defaults().withOperationTimeoutMs(5_000))) {
            assertEquals(2, client.servers().size());
            for (ServerInfo s : client.servers()) {
                assertEquals(switch (scheme) {
                    case "rstore" -> "shm";
                    case "rstore+rdma" -> "rdma";
                    default -> "tcp";
                }, client.transportTo(s));
                assertTrue(s.rdma().startsWith("emulated://127.0.0.1:"), s.rdma());
            }
            Namespace ns = client.createNamespace("daemons");
            // one chunk each: round-robin striping puts them on different servers
            RAddress first = ns.alloc(CHUNK, AllocFlags.GROW);
            RAddress second = ns.alloc(CHUNK, AllocFlags.GROW);
            try (Mapping a = first.map(MapFlags.NONE); Mapping b = second.map(MapFlags.NONE)) {
                fill(a, 7);
                fill(b, 11);
                a.write();
                b.write();

                servers.get(1).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                // tcp sees the connection reset at once; shm, when the server's heartbeat lease runs out (2 s)
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
                Mapping onDead = null;
                Mapping onLive = null;
                while (onDead == null && System.nanoTime() < deadline) {
                    for (Mapping m : List.of(a, b)) {
                        try {
                            m.read();
                        } catch (RStoreException e) {
                            assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
                            onDead = m;
                            onLive = m == a ? b : a;
                        }
                    }
                    Thread.sleep(10);
                }
                assertTrue(onDead != null, "operations on the killed server's chunk failed within the bound");
                onLive.read();
                assertServerMarkedDead(client, 1);

                master.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                RStoreException e = assertThrows(RStoreException.class, () -> client.createNamespace("after the master"));
                assertEquals(ErrorCode.MASTER_UNAVAILABLE, e.code(), e.getMessage());
                // the data path does not need the master: the live server's segment reads and writes on
                onLive.read();
                check(onLive, onLive == a ? 7 : 11);
                fill(onLive, 13);
                onLive.write();
                fill(onLive, 0);
                onLive.read();
                check(onLive, 13);
            }
        }
    }

    private static void assertServerMarkedDead(RStore client, int id) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (client.servers().get(id).alive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        ServerInfo server = client.servers().get(id);
        assertFalse(server.alive(), "the master marked the killed server dead within a few heartbeats: " + server);
        assertTrue(client.servers().get(1 - id).alive());
    }

    private static void fill(Mapping m, long seed) {
        for (long at = 0; at < m.length(); at += 8) {
            m.segment().set(ValueLayout.JAVA_LONG, at, seed == 0 ? 0 : at * seed);
        }
    }

    private static void check(Mapping m, long seed) {
        for (long at = 0; at < m.length(); at += 8) {
            assertEquals(at * seed, m.segment().get(ValueLayout.JAVA_LONG, at), "long at " + at);
        }
    }
}

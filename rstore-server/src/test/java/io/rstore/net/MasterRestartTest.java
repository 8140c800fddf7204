package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.protocol.ServerInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Live memory servers rejoin a master that was killed and started again, within two heartbeats. */
@Timeout(180)
class MasterRestartTest {
    private static final long HEARTBEAT_MS = 1_000;
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @TempDir
    Path dir;

    @Test
    void shouldHaveLiveServersRejoinARestartedMaster() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Path conf = dir.resolve("rstore.conf");
        Files.writeString(conf, """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir =
                rstore.timeout = 5s
                rstore.rdma.device = none
                rstore.heartbeat = %dms
                """.formatted(HEARTBEAT_MS));
        Process master = startMaster(conf, port);
        Process[] servers = new Process[2];
        for (int i = 0; i < 2; i++) {
            servers[i] = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "127.0.0.1:" + port);
            JavaProcesses.awaitLine(servers[i], "memory server " + i + " serving", 60);
        }
        String uri = "rstore+tcp://127.0.0.1:" + port;
        RStoreSettings settings = RStoreSettings.defaults().withOperationTimeoutMs(5_000);
        try (RStore client = RStore.connect(uri, settings)) {
            client.createNamespace("before").alloc(2 << 20, AllocFlags.GROW); // a chunk on each server
            assertEquals(2 << 20, client.servers().stream().mapToLong(ServerInfo::usedBytes).sum());
        }

        master.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        for (Process server : servers) {
            JavaProcesses.awaitLine(server, "lost the master", 10);
        }
        Process restarted = startMaster(conf, port);
        long up = System.nanoTime();
        for (Process server : servers) {
            JavaProcesses.awaitLine(server, "registered with the master at 127\\.0\\.0\\.1:" + port + " again, as memory server [01]", 10);
        }
        long rejoinedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - up);
        assertTrue(rejoinedMs <= 2 * HEARTBEAT_MS, "the servers rejoined " + rejoinedMs + " ms after the master was back");

        try (RStore client = RStore.connect(uri, settings)) {
            List<ServerInfo> known = client.servers();
            assertEquals(2, known.size());
            assertTrue(known.stream().allMatch(ServerInfo::alive), known.toString());
            // what a restarted master keeps and loses (docs/rstore.md): namespaces are gone, and the servers released their chunks
            assertEquals(0, client.namespaces().size());
            assertEquals(0, known.stream().mapToLong(ServerInfo::usedBytes).sum(), "the old master's chunks were released");
            try (Mapping m = client.createNamespace("after").alloc(2 << 20, AllocFlags.GROW).map(MapFlags.NONE)) {
                m.segment().set(ValueLayout.JAVA_LONG, (1 << 20) + 8, 77);
                m.write();
                m.segment().fill((byte) 0);
                m.read();
                assertEquals(77, m.segment().get(ValueLayout.JAVA_LONG, (1 << 20) + 8));
            }
        }
        // a repeated registration while the master knows the server is a no-op: ids and chunks stay
        Thread.sleep(3 * HEARTBEAT_MS);
        try (RStore client = RStore.connect(uri, settings)) {
            assertEquals(2, client.servers().size());
            assertEquals(2 << 20, client.servers().stream().mapToLong(ServerInfo::usedBytes).sum());
        } catch (RStoreException e) {
            throw new AssertionError(e.code() == ErrorCode.MASTER_UNAVAILABLE ? "the restarted master is gone" : e.getMessage(), e);
        }
        restarted.destroy();
    }

    private Process startMaster(Path conf, int port) throws Exception {
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--port", Integer.toString(port));
        JavaProcesses.awaitLine(master, "serving on 127\\.0\\.0\\.1:" + port, 60);
        return master;
    }
}

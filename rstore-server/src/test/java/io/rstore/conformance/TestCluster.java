package io.rstore.conformance;

import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.embedded.EmbeddedCluster;
import io.rstore.master.Master;
import io.rstore.net.NetworkCluster;
import io.rstore.transport.RegionTable;

import java.net.InetSocketAddress;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A cluster for conformance tests, started for one transport. Every behaviour that does
 * not depend on the transport is tested against each of {@link #transports()}.
 */
final class TestCluster implements AutoCloseable {
    static final long CHUNK = 64 * 1024;
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final EmbeddedCluster cluster;  // inproc
    private final NetworkCluster network;   // tcp, shm, rdma (on the emulated device)
    private final String scheme;
    private final RStoreSettings settings;
    private final List<RStore> clients = new ArrayList<>();
    private long inspector;

    private TestCluster(EmbeddedCluster cluster, NetworkCluster network, String scheme, RStoreSettings settings) {
        this.cluster = cluster;
        this.network = network;
        this.scheme = scheme;
        this.settings = settings;
    }

    /** The transports the conformance suite runs on. */
    static Stream<String> transports() {
        return Stream.of("inproc", "tcp", "shm", "rdma");
    }

    /** Small chunks so that tests cross chunk and server boundaries cheaply. */
    static RStoreSettings settings(int servers) {
        return RStoreSettings.defaults()
                .withClusterName("test-" + NAMES.incrementAndGet())
                .withMemoryServers(servers)
                .withChunkSizeBytes(CHUNK)
                .withServerCapacityBytes(256 * CHUNK)
                .withLocalArenaBytes(1 << 20)
                .withOperationTimeoutMs(5_000);
    }

    static TestCluster start(String transport, int servers) {
        return start(transport, settings(servers));
    }

    static TestCluster start(String transport, RStoreSettings settings) {
        return switch (transport) {
            case "inproc" -> new TestCluster(EmbeddedCluster.start(settings), null, null, settings);
            case "tcp" -> new TestCluster(null, NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0)), "rstore+tcp", settings);
            case "shm" -> new TestCluster(null, NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0), shmDirectory()), "rstore+shm",
                    settings);
            case "rdma" -> new TestCluster(null, NetworkCluster.startWithRdma(settings, new InetSocketAddress("127.0.0.1", 0), "emulated"), "rstore+rdma",
                    settings);
            default -> throw new IllegalArgumentException("no test cluster for transport " + transport);
        };
    }

    /** Where shm chunk files go: /dev/shm where there is one (Linux), else the temporary directory. */
    static java.nio.file.Path shmDirectory() {
        java.nio.file.Path shm = java.nio.file.Path.of("/dev/shm");
        return java.nio.file.Files.isDirectory(shm) ? shm : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** A new client; closed with the cluster. */
    synchronized RStore client() {
        RStore client = cluster != null ? cluster.connect("test client " + clients.size())
                : RStore.connect(scheme.equals("rstore+rdma") ? network.rdmaUri("127.0.0.1") : scheme + "://127.0.0.1:" + network.port(), settings);
        clients.add(client);
        return client;
    }

    /** A memory server's registered memory, to check credentials from the server's side. */
    RegionTable regions(int serverId) {
        return cluster != null ? cluster.server(serverId).regions() : network.server(serverId).regions();
    }

    /** Where the master says a segment lives (through a session of the test's own). */
    synchronized io.rstore.protocol.SegmentInfo locate(io.rstore.RAddress segment) {
        if (inspector == 0) {
            inspector = master().openSession("test inspector");
        }
        return master().lookup(inspector, segment.namespace().id(), segment.address());
    }

    Master master() {
        return cluster != null ? cluster.master() : network.master();
    }

    void stopServer(int id) {
        if (cluster != null) {
            cluster.stopServer(id);
        } else {
            network.stopServer(id);
        }
    }

    @Override
    public synchronized void close() {
        clients.forEach(RStore::close);
        if (cluster != null) {
            cluster.close();
        } else {
            network.close();
        }
    }
}

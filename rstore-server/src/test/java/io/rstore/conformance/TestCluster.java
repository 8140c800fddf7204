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

    /** How much longer to wait than on a real machine: bin/test-rdma's emulated guest is many times slower. */
    static final int TIME_SCALE = Integer.parseInt(System.getenv().getOrDefault("RSTORE_TEST_TIME_SCALE", "1"));

    /** The address of a real RDMA device's interface (a soft device does not work on 127.0.0.1), or null. */
    static final String RDMA_ADDRESS = System.getenv("RSTORE_RDMA_ADDRESS");

    /**
     * The transports the conformance suite runs on: inproc, tcp, shm, rdma (the emulated
     * device) and, where a device, libdisni and RSTORE_RDMA_ADDRESS are present, disni
     * (rdma on the real device). RSTORE_TEST_TRANSPORTS=disni,... picks some of them
     * (bin/test-rdma runs only disni in its guest).
     */
    static Stream<String> transports() {
        String chosen = System.getenv("RSTORE_TEST_TRANSPORTS");
        if (chosen != null && !chosen.isBlank()) {
            return Stream.of(chosen.split(",")).map(String::trim);
        }
        boolean device = RDMA_ADDRESS != null && !RDMA_ADDRESS.isEmpty() && io.rstore.transport.rdma.RdmaEnvironment.unavailable() == null;
        return device ? Stream.of("inproc", "tcp", "shm", "rdma", "disni") : Stream.of("inproc", "tcp", "shm", "rdma");
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
            case "disni" -> new TestCluster(null, NetworkCluster.startWithRdma(settings, new InetSocketAddress(RDMA_ADDRESS, 0), "disni"), "rstore+rdma",
                    settings);
            default -> throw new IllegalArgumentException("no test cluster for transport " + transport);
        };
    }

    /** Where the cluster listens: the RDMA device's address for disni, else loopback. */
    private String host() {
        return network.rdmaUri("127.0.0.1").contains("device=emulated") ? "127.0.0.1" : RDMA_ADDRESS;
    }

    /** Where shm chunk files go: /dev/shm where there is one (Linux), else the temporary directory. */
    static java.nio.file.Path shmDirectory() {
        java.nio.file.Path shm = java.nio.file.Path.of("/dev/shm");
        return java.nio.file.Files.isDirectory(shm) ? shm : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** A new client; closed with the cluster. */
    synchronized RStore client() {
        RStore client = cluster != null ? cluster.connect("test client " + clients.size())
                : RStore.connect(scheme.equals("rstore+rdma") ? network.rdmaUri(host()) : scheme + "://127.0.0.1:" + network.port(), settings);
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

    /** The memory server itself, for what no client may do (give a mapped chunk a new key). */
    io.rstore.server.MemoryServer server(int id) {
        return cluster != null ? cluster.server(id) : network.server(id);
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

package io.rstore.conformance;

import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.embedded.EmbeddedCluster;
import io.rstore.master.Master;

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

    private final EmbeddedCluster cluster;
    private final List<RStore> clients = new ArrayList<>();
    private long inspector;

    private TestCluster(EmbeddedCluster cluster) {
        this.cluster = cluster;
    }

    /** The transports the conformance suite runs on. */
    static Stream<String> transports() {
        return Stream.of("inproc");
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
        if (!transport.equals("inproc")) {
            throw new IllegalArgumentException("no test cluster for transport " + transport);
        }
        return new TestCluster(EmbeddedCluster.start(settings));
    }

    /** A new client; closed with the cluster. */
    synchronized RStore client() {
        RStore client = cluster.connect("test client " + clients.size());
        clients.add(client);
        return client;
    }

    /** Where the master says a segment lives (through a session of the test's own). */
    synchronized io.rstore.protocol.SegmentInfo locate(io.rstore.RAddress segment) {
        if (inspector == 0) {
            inspector = cluster.master().openSession("test inspector");
        }
        return cluster.master().lookup(inspector, segment.namespace().id(), segment.address());
    }

    Master master() {
        return cluster.master();
    }

    EmbeddedCluster embedded() {
        return cluster;
    }

    void stopServer(int id) {
        cluster.stopServer(id);
    }

    @Override
    public synchronized void close() {
        clients.forEach(RStore::close);
        cluster.close();
    }
}

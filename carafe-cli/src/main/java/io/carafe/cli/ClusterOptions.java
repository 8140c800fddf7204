package io.carafe.cli;

import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.cli.Secrets;
import io.rstore.config.Units;
import io.rstore.net.NetworkCluster;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** The RStore cluster a command runs on: embedded (the default) with its shape. */
final class ClusterOptions {

    @Option(names = "--memory-servers", defaultValue = "2", description = "memory servers of the embedded cluster (default: ${DEFAULT-VALUE})")
    int memoryServers;

    @Option(names = "--chunk-size", defaultValue = "16MiB", description = "RStore chunk size (default: ${DEFAULT-VALUE})")
    String chunkSize;

    @Option(names = "--cluster", paramLabel = "URI", description = "use a running cluster (e.g. rstore+tcp://HOST:7400) instead of an embedded one")
    String cluster;

    private NetworkCluster served;

    /** An embedded cluster, or the --cluster one. */
    RStore start() {
        return start(false);
    }

    /**
     * With {@code reachableByOtherProcesses} and no --cluster, the cluster is served from this
     * process on loopback, so worker processes can join it: its chunks are files in /dev/shm
     * (where there is one) that every process on this host maps, so workers move their bytes
     * as the embedded cluster's threads do, with tcp only for control calls (and for
     * everything where there is no /dev/shm). {@link #stop()} ends it.
     */
    RStore start(boolean reachableByOtherProcesses) {
        RStoreSettings settings = settings();
        if (cluster != null) {
            return RStore.connect(cluster, settings);
        }
        if (reachableByOtherProcesses) {
            Path shm = Path.of("/dev/shm");
            served = NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0), Files.isDirectory(shm) ? shm : null);
            return RStore.connect("rstore://127.0.0.1:" + served.port(), settings); // auto: shm to servers on this host
        }
        return RStore.embedded(settings);
    }

    /**
     * The cluster's settings from these options, checked with the other options before
     * anything is imported or loaded: a bad value is a usage error naming the flag the user
     * typed, not a cluster failure naming a settings field.
     */
    RStoreSettings settings() {
        if (memoryServers < 1 || memoryServers > 1024) {
            throw new IllegalArgumentException("--memory-servers must be 1..1024, was " + memoryServers);
        }
        long chunk;
        try {
            chunk = Units.parseBytes(chunkSize);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--chunk-size must be a size such as 16MiB, was " + chunkSize);
        }
        if (Long.bitCount(chunk) != 1 || chunk < 64 << 10 || chunk > 1 << 30) {
            throw new IllegalArgumentException("--chunk-size must be a power of two from 64KiB to 1GiB, was " + chunkSize);
        }
        return RStoreSettings.defaults()
                .withClusterName("carafe")
                .withMemoryServers(memoryServers)
                .withChunkSizeBytes(chunk)
                .withServerCapacityBytes(64L << 30)
                .withClusterSecret(Secrets.fromEnvironment()); // worker processes inherit it
    }

    void stop() {
        if (served != null) {
            served.close();
            served = null;
        }
    }
}

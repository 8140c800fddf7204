package io.carafe.cli;

import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.config.Units;
import io.rstore.net.NetworkCluster;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;

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
        RStoreSettings settings = RStoreSettings.defaults()
                .withClusterName("carafe")
                .withMemoryServers(memoryServers)
                .withChunkSizeBytes(Units.parseBytes(chunkSize))
                .withServerCapacityBytes(64L << 30)
                .withClusterSecret(io.rstore.cli.Secrets.fromEnvironment()); // worker processes inherit it
        if (cluster != null) {
            return RStore.connect(cluster, settings);
        }
        if (reachableByOtherProcesses) {
            java.nio.file.Path shm = java.nio.file.Path.of("/dev/shm");
            served = NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0), java.nio.file.Files.isDirectory(shm) ? shm : null);
            return RStore.connect("rstore://127.0.0.1:" + served.port(), settings); // auto: shm to servers on this host
        }
        return RStore.embedded(settings);
    }

    void stop() {
        if (served != null) {
            served.close();
            served = null;
        }
    }
}

package io.carafe.cli;

import io.rstore.RStore;
import io.rstore.RStoreSettings;
import picocli.CommandLine.Option;

/** The RStore cluster a command runs on: embedded (the default) with its shape. */
final class ClusterOptions {

    @Option(names = "--memory-servers", defaultValue = "2", description = "memory servers of the embedded cluster (default: ${DEFAULT-VALUE})")
    int memoryServers;

    @Option(names = "--chunk-size", defaultValue = "16MiB", description = "RStore chunk size (default: ${DEFAULT-VALUE})")
    String chunkSize;

    RStore start() {
        return RStore.embedded(RStoreSettings.defaults()
                .withClusterName("carafe")
                .withMemoryServers(memoryServers)
                .withChunkSizeBytes(io.rstore.bench.Units.parseBytes(chunkSize))
                .withServerCapacityBytes(64L << 30));
    }
}

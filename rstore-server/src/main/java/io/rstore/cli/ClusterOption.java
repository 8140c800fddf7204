package io.rstore.cli;

import io.rstore.RStore;
import picocli.CommandLine.Option;

/** Which running cluster an admin command talks to. */
final class ClusterOption {
    @Option(names = {"-c", "--cluster"}, paramLabel = "URI", defaultValue = "rstore://127.0.0.1:7400",
            description = "the cluster: rstore:// (auto: shm for servers on this host, tcp otherwise), rstore+tcp:// or rstore+shm:// (default: ${DEFAULT-VALUE})")
    String uri;

    /** Connects with the secret from $RSTORE_SECRET, if any. */
    RStore connect() {
        return RStore.connect(uri, io.rstore.RStoreSettings.defaults().withClusterSecret(Secrets.fromEnvironment()));
    }
}

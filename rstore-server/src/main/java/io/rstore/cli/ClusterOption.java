package io.rstore.cli;

import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.config.RStoreConfig.Key;
import io.rstore.config.RStoreConfig;
import picocli.CommandLine.Option;

import java.util.Map;

/** Which running cluster an admin command talks to (rstore's, and carafe's graphs commands). */
public final class ClusterOption {
    @Option(names = {"-c", "--cluster"}, paramLabel = "URI",
            description = {"the cluster: rstore://HOST:PORT (auto: shm for servers on this host, tcp otherwise), rstore+tcp:// or rstore+shm://.",
                    "Default: the master and transport of conf/rstore.conf (rstore.master.host, rstore.master.port, rstore.transport)."})
    String uri;

    /** Connects with the secret from rstore.secret.file, else $RSTORE_SECRET. */
    public RStore connect() {
        RStoreConfig config = RStoreConfig.load(null, System.getenv(), Map.of());
        return RStore.connect(uri != null ? uri : defaultUri(config),
                RStoreSettings.defaults().withClusterSecret(Daemon.secret(config)));
    }

    /** The configured master, with the scheme that asks for the configured transport. */
    static String defaultUri(RStoreConfig config) {
        String host = config.get(Key.MASTER_HOST);
        return switch (config.get(Key.TRANSPORT)) {
            case "tcp" -> "rstore+tcp://" + host + ":" + config.port(Key.MASTER_PORT);
            case "shm" -> "rstore+shm://" + host + ":" + config.port(Key.MASTER_PORT);
            case "rdma" -> "rstore+rdma://" + host + ":" + config.port(Key.MASTER_RDMA_PORT)
                    + (config.get(Key.RDMA_DEVICE).equals("emulated") ? "?device=emulated" : "");
            default -> "rstore://" + host + ":" + config.port(Key.MASTER_PORT);
        };
    }
}

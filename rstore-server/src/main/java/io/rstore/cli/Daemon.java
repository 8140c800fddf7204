package io.rstore.cli;

import io.rstore.config.RStoreConfig;
import io.rstore.transport.rdma.RdmaDevice;
import io.rstore.transport.rdma.RdmaEnvironment;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** What the daemon commands share: --conf, the flags-over-environment-over-file configuration, the log, running until stopped. */
final class Daemon {
    @Option(names = "--conf", paramLabel = "FILE", description = "configuration file (default: $RSTORE_CONF, else conf/rstore.conf; absent: defaults)")
    Path conf;

    @Option(names = "--secret-file", paramLabel = "FILE", description = "first line is the cluster secret (default: rstore.secret.file, else $RSTORE_SECRET)")
    Path secretFile;

    @Option(names = "--timeout", paramLabel = "DURATION", description = "bound on calls and operations, e.g. 30s (rstore.timeout)")
    String timeout;

    @Option(names = "--rdma-device", paramLabel = "KIND", description = "auto, disni, emulated or none (rstore.rdma.device)")
    String rdmaDevice;

    private final Map<RStoreConfig.Key, String> flags = new EnumMap<>(RStoreConfig.Key.class);

    /** Records a flag's value for {@code key} if the flag was given. */
    Daemon flag(RStoreConfig.Key key, Object value) {
        if (value != null) {
            flags.put(key, value.toString());
        }
        return this;
    }

    RStoreConfig load() {
        flag(RStoreConfig.Key.SECRET_FILE, secretFile).flag(RStoreConfig.Key.TIMEOUT, timeout).flag(RStoreConfig.Key.RDMA_DEVICE, rdmaDevice);
        return RStoreConfig.load(conf, System.getenv(), flags);
    }

    /** The secret from rstore.secret.file, else $RSTORE_SECRET, else none. */
    static String secret(RStoreConfig config) {
        String file = config.get(RStoreConfig.Key.SECRET_FILE);
        return Secrets.from(file.isEmpty() ? null : Path.of(file));
    }

    /** The configured RDMA device, or null; when auto finds none, the log says why. */
    static RdmaDevice rdma(RStoreConfig config, String who) {
        String kind = config.get(RStoreConfig.Key.RDMA_DEVICE);
        RdmaDevice device = RdmaEnvironment.open(kind);
        if (device == null && kind.equals("auto")) {
            log(who, "no RDMA: " + RdmaEnvironment.unavailable() + " (rstore doctor says more)");
        }
        return device;
    }

    static void log(String who, String line) {
        System.out.println(LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME) + " " + who + ": " + line);
        System.out.flush();
    }

    static void logConfig(String who, RStoreConfig config, List<RStoreConfig.Key> keys, String secret) {
        config.describe(keys).forEach(line -> log(who, line));
        log(who, secret.isEmpty() ? "no cluster secret: anyone who can connect is let in" : "cluster secret required of every connection");
    }

    /** Blocks until SIGTERM or Ctrl-C, then closes {@code node}. */
    static void runUntilStopped(String who, AutoCloseable node) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            log(who, "stopping");
            try {
                node.close();
            } catch (Exception e) {
                log(who, "while stopping: " + e);
            }
            stopped.countDown();
        }));
        stopped.await();
    }
}

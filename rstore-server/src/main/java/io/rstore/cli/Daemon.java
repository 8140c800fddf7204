package io.rstore.cli;

import com.codahale.metrics.MetricRegistry;
import io.rstore.config.Logs;
import io.rstore.config.RStoreConfig;
import io.rstore.net.MetricsEndpoint;
import io.rstore.net.NetLimits;
import io.rstore.transport.rdma.RdmaDevice;
import io.rstore.transport.rdma.RdmaEnvironment;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
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

    @Option(names = "--print-jvm-options", hidden = true, description = "print the heap and direct-memory bounds for this configuration, then exit (bin/rstore)")
    boolean printJvmOptions;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "serve Prometheus metrics at http://BIND:PORT/metrics, 0 for any free port (rstore.metrics.port; default none)")
    Integer metricsPort;

    @Option(names = "--log-level", paramLabel = "LEVEL", description = "trace, debug, info, warn or error (rstore.log.level)")
    String logLevel;

    @Option(names = "--log-file", paramLabel = "FILE", description = "write the log to FILE instead of stdout (rstore.log.file)")
    String logFile;

    @Option(names = "--insecure", description = "without a cluster secret, listen on an address other hosts reach anyway (rstore.insecure)")
    Boolean insecure;

    private final Map<RStoreConfig.Key, String> flags = new EnumMap<>(RStoreConfig.Key.class);

    /** Records a flag's value for {@code key} if the flag was given. */
    Daemon flag(RStoreConfig.Key key, Object value) {
        if (value != null) {
            flags.put(key, value.toString());
        }
        return this;
    }

    RStoreConfig load() {
        flag(RStoreConfig.Key.SECRET_FILE, secretFile).flag(RStoreConfig.Key.TIMEOUT, timeout).flag(RStoreConfig.Key.RDMA_DEVICE, rdmaDevice)
                .flag(RStoreConfig.Key.INSECURE, insecure).flag(RStoreConfig.Key.LOG_LEVEL, logLevel).flag(RStoreConfig.Key.LOG_FILE, logFile)
                .flag(RStoreConfig.Key.METRICS_PORT, metricsPort);
        RStoreConfig config = RStoreConfig.load(conf, System.getenv(), flags);
        if (printJvmOptions) {
            Logs.quiet();
        } else {
            Logs.configure(config.get(RStoreConfig.Key.LOG_LEVEL), config.get(RStoreConfig.Key.LOG_FILE));
        }
        return config;
    }

    /** The secret from rstore.secret.file, else $RSTORE_SECRET, else none. */
    static String secret(RStoreConfig config) {
        String file = config.get(RStoreConfig.Key.SECRET_FILE);
        return Secrets.from(file.isEmpty() ? null : Path.of(file));
    }

    /**
     * Protected mode: the address to listen on. Empty means all interfaces with a cluster
     * secret and loopback without one; without a secret, an address other hosts reach is
     * refused unless {@code insecure}, and then the log warns.
     */
    static String bindAddress(String configured, String secret, boolean insecure, String who) {
        if (configured.isEmpty()) {
            return secret.isEmpty() ? "127.0.0.1" : "0.0.0.0";
        }
        if (!secret.isEmpty() || isLoopback(configured)) {
            return configured;
        }
        if (!insecure) {
            throw new IllegalArgumentException("refusing to listen on " + configured + " without a cluster secret: anyone who can connect"
                    + " could read and write every namespace. Give the cluster a secret (--secret-file FILE with the secret on its first"
                    + " line, chmod 600; or RSTORE_SECRET), or pass --insecure (rstore.insecure = true) on a network you trust");
        }
        warn(who, "listening on " + configured + " without a cluster secret (--insecure): anyone who can connect is let in");
        return configured;
    }

    private static boolean isLoopback(String address) {
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve the address to listen on, " + address + ": " + e.getMessage());
        }
    }

    /** Heap beyond the chunks: metadata, sessions, connection threads' objects. */
    static final long HEAP = 512L << 20;
    /** Direct memory beyond the chunks: connections' frame buffers, RDMA message buffers. */
    static final long DIRECT_OVERHEAD = 512L << 20;

    /**
     * With --print-jvm-options, prints the JVM bounds a daemon whose chunks take
     * {@code chunkBytes} of direct memory should run with, and returns true: bin/rstore
     * starts the daemon with them, so a flood cannot grow it without bound.
     */
    static boolean printedJvmOptions(Daemon daemon, long chunkBytes) {
        if (daemon != null && daemon.printJvmOptions) {
            System.out.println(jvmOptions(chunkBytes));
            return true;
        }
        return false;
    }

    /** The heap and direct-memory bounds of a process whose chunks take {@code chunkBytes}. */
    static String jvmOptions(long chunkBytes) {
        return "-Xmx" + (HEAP >> 20) + "m -XX:MaxDirectMemorySize=" + ((chunkBytes + DIRECT_OVERHEAD) >> 20) + "m";
    }

    /**
     * The daemon's metrics over JMX, and as Prometheus text on rstore.metrics.port (if set)
     * at the daemon's bind address; the log says where.
     */
    static MetricsEndpoint metrics(MetricRegistry registry, RStoreConfig config, String bindTo, String who) {
        String port = config.get(RStoreConfig.Key.METRICS_PORT);
        MetricsEndpoint endpoint = MetricsEndpoint.start(registry,
                port.isEmpty() ? null : new InetSocketAddress(bindTo, config.port(RStoreConfig.Key.METRICS_PORT)));
        log(who, "metrics over JMX (domain io.rstore)" + (endpoint.port() < 0 ? "; no Prometheus endpoint (rstore.metrics.port)"
                : "; Prometheus at http://" + bindTo + ":" + endpoint.port() + "/metrics"));
        return endpoint;
    }

    /** What one connection may cost, from rstore.net.*. */
    static NetLimits limits(RStoreConfig config) {
        return new NetLimits(config.count(RStoreConfig.Key.MAX_CONNECTIONS), config.count(RStoreConfig.Key.MAX_PENDING_HANDSHAKES),
                config.count(RStoreConfig.Key.MAX_PENDING_PER_SOURCE), config.millis(RStoreConfig.Key.HANDSHAKE_TIMEOUT),
                config.millis(RStoreConfig.Key.FRAME_TIMEOUT), config.bytes(RStoreConfig.Key.RDMA_MESSAGE_MEMORY));
    }

    /** The configured RDMA device, or null; when auto finds none, the log says why. An emulated device's listeners require {@code secret}. */
    static RdmaDevice rdma(RStoreConfig config, String who, String secret) {
        String kind = config.get(RStoreConfig.Key.RDMA_DEVICE);
        RdmaDevice device = RdmaEnvironment.open(kind, secret);
        if (device == null && kind.equals("auto")) {
            log(who, "no RDMA: " + RdmaEnvironment.unavailable() + " (rstore doctor says more)");
        }
        return device;
    }

    static void log(String who, String line) {
        Logs.get(who).info(line);
    }

    static void warn(String who, String line) {
        Logs.get(who).warn(line);
    }

    static void logConfig(String who, RStoreConfig config, List<RStoreConfig.Key> keys, String secret) {
        config.describe(keys).forEach(line -> log(who, line));
        log(who, secret.isEmpty() ? "no cluster secret: anyone who can connect is let in (so by default only this host can)" : "cluster secret required of every connection");
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

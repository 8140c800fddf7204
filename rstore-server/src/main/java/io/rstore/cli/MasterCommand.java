package io.rstore.cli;

import io.rstore.config.RStoreConfig.Key;
import io.rstore.config.RStoreConfig;
import io.rstore.config.Units;
import io.rstore.net.MasterNode;
import io.rstore.net.MetricsEndpoint;
import io.rstore.transport.rdma.RdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "master",
        mixinStandardHelpOptions = true,
        header = "Run the master daemon: namespaces, segments and references; memory servers register with it.",
        description = {"Configuration: conf/rstore.conf, overridden by RSTORE_* environment variables, then by these flags.",
                "Clients connect with rstore://HOST:PORT (rstore+tcp:// or rstore+shm:// to force a transport). Runs until stopped (SIGTERM or Ctrl-C)."})
final class MasterCommand implements Callable<Integer> {
    private static final String WHO = "rstore master";

    @Mixin
    Daemon daemon;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "address to listen on (rstore.master.bind)")
    String bind;

    @Option(names = {"-p", "--port"}, description = "port to listen on, 0 for any free one (rstore.master.port)")
    Integer port;

    @Option(names = "--chunk-size", paramLabel = "SIZE", description = "chunk size, e.g. 16MiB (rstore.chunk.size)")
    String chunkSize;

    @Option(names = "--heartbeat", paramLabel = "DURATION", description = "how often to ping each memory server (rstore.heartbeat)")
    String heartbeat;

    @Option(names = "--rdma-port", paramLabel = "PORT", description = "port of the RDMA listener for control calls (rstore.master.rdma.port)")
    Integer rdmaPort;

    @Option(names = "--persistence-dir", paramLabel = "DIR", description = "journal the metadata in DIR and replay it at start (rstore.master.persistence.dir)")
    String persistenceDir;

    @Option(names = "--allow-remote-servers", description = "without a cluster secret, let memory servers on other hosts register (rstore.master.remote-servers)")
    Boolean remoteServers;

    @Override
    public Integer call() throws InterruptedException {
        RStoreConfig config = daemon.flag(Key.MASTER_BIND, bind).flag(Key.MASTER_PORT, port).flag(Key.CHUNK_SIZE, chunkSize)
                .flag(Key.HEARTBEAT, heartbeat).flag(Key.MASTER_RDMA_PORT, rdmaPort).flag(Key.REMOTE_SERVERS, remoteServers)
                .flag(Key.MASTER_PERSISTENCE_DIR, persistenceDir).load();
        String secret = Daemon.secret(config);
        String bindTo = Daemon.bindAddress(config.get(Key.MASTER_BIND), secret, config.bool(Key.INSECURE), WHO);
        if (Daemon.printedJvmOptions(daemon, 0)) {
            return 0;
        }
        Daemon.logConfig(WHO, config, List.of(Key.MASTER_BIND, Key.MASTER_PORT, Key.CHUNK_SIZE, Key.HEARTBEAT, Key.RDMA_DEVICE, Key.MASTER_RDMA_PORT,
                Key.TIMEOUT, Key.SECRET_FILE, Key.INSECURE, Key.REMOTE_SERVERS, Key.MASTER_PERSISTENCE_DIR, Key.MAX_CONNECTIONS, Key.HANDSHAKE_TIMEOUT, Key.FRAME_TIMEOUT, Key.RDMA_MESSAGE_MEMORY, Key.METRICS_PORT, Key.LOG_LEVEL, Key.LOG_FILE), secret);
        InetSocketAddress at = new InetSocketAddress(bindTo, config.port(Key.MASTER_PORT));
        RdmaDevice rdma = Daemon.rdma(config, WHO, secret);
        Path persistence = config.get(Key.MASTER_PERSISTENCE_DIR).isEmpty() ? null : Path.of(config.get(Key.MASTER_PERSISTENCE_DIR));
        MasterNode master = MasterNode.start(new MasterNode.Context().chunkSizeBytes(config.bytes(Key.CHUNK_SIZE)).bind(at).secret(secret)
                .timeoutMs(config.millis(Key.TIMEOUT)).heartbeatMs(config.millis(Key.HEARTBEAT)).rdma(rdma, config.port(Key.MASTER_RDMA_PORT))
                .limits(Daemon.limits(config)).remoteServers(config.bool(Key.REMOTE_SERVERS)).persistenceDirectory(persistence)
                .log(line -> Daemon.log(WHO, line)));
        Daemon.log(WHO, "serving on " + bindTo + ":" + master.port() + " (transport tcp"
                + (rdma == null ? "" : "; rdma on the " + rdma.kind() + " device at port " + master.rdmaPort()) + "; chunks of "
                + Units.bytes(config.bytes(Key.CHUNK_SIZE)) + "; at most " + master.maxConnections() + " connections; "
                + (persistence == null ? "metadata in memory only" : "metadata journaled in " + persistence + ", " + master.master().namespaceCount()
                        + " namespace(s) and " + master.master().servers().size() + " server(s) recovered") + ")");
        MetricsEndpoint metrics = Daemon.metrics(master.metrics(), config, bindTo, WHO);
        Daemon.runUntilStopped(WHO, () -> {
            metrics.close();
            master.close();
        });
        return 0;
    }
}

package io.rstore.cli;

import io.rstore.config.RStoreConfig.Key;
import io.rstore.config.RStoreConfig;
import io.rstore.config.Units;
import io.rstore.net.MetricsEndpoint;
import io.rstore.net.ServerNode;
import io.rstore.server.ShmChunkFiles;
import io.rstore.transport.rdma.RdmaDevice;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "server",
        mixinStandardHelpOptions = true,
        header = "Run a memory server daemon: DRAM chunks that clients read and write one-sided.",
        description = {"It registers with the master (rstore.master.host:rstore.master.port), which then hands its chunks to namespaces.",
                "Configuration: conf/rstore.conf, overridden by RSTORE_* environment variables, then by these flags.",
                "Runs until stopped (SIGTERM or Ctrl-C)."})
final class ServerCommand implements Callable<Integer> {
    private static final String WHO = "rstore server";

    @Mixin
    Daemon daemon;

    @Option(names = {"-m", "--master"}, paramLabel = "HOST[:PORT]", description = "the master (rstore.master.host, rstore.master.port)")
    String master;

    @Option(names = "--bind", paramLabel = "ADDRESS", description = "address to listen on (rstore.server.bind)")
    String bind;

    @Option(names = {"-p", "--port"}, description = "port to listen on, 0 for any free one (rstore.server.port)")
    Integer port;

    @Option(names = "--advertise", paramLabel = "HOST", description = "host clients reach this server at (rstore.server.advertise)")
    String advertise;

    @Option(names = "--capacity", paramLabel = "SIZE", description = "DRAM this server may hand out, e.g. 8GiB (rstore.server.capacity)")
    String capacity;

    @Option(names = "--shm-dir", paramLabel = "DIR", description = "directory for chunk files clients on this host map; empty for tcp only (rstore.shm.dir)")
    String shmDir;

    @Option(names = "--persistence-dir", paramLabel = "DIR", description = "keep the chunks as files in DIR across restarts; persist flushes them (rstore.server.persistence.dir)")
    String persistenceDir;

    @Option(names = "--rdma-port", paramLabel = "PORT", description = "port of the RDMA listener, 0 for any free one (rstore.server.rdma.port)")
    Integer rdmaPort;

    @Override
    public Integer call() throws InterruptedException {
        if (master != null) {
            int colon = master.lastIndexOf(':');
            daemon.flag(Key.MASTER_HOST, colon < 0 ? master : master.substring(0, colon));
            if (colon >= 0) {
                daemon.flag(Key.MASTER_PORT, master.substring(colon + 1));
            }
        }
        RStoreConfig config = daemon.flag(Key.SERVER_BIND, bind).flag(Key.SERVER_PORT, port).flag(Key.SERVER_ADVERTISE, advertise)
                .flag(Key.SERVER_CAPACITY, capacity).flag(Key.SHM_DIR, shmDir).flag(Key.SERVER_RDMA_PORT, rdmaPort)
                .flag(Key.SERVER_PERSISTENCE_DIR, persistenceDir).load();
        String secret = Daemon.secret(config);
        String bindTo = Daemon.bindAddress(config.get(Key.SERVER_BIND), secret, config.bool(Key.INSECURE), WHO);
        if (Daemon.printedJvmOptions(daemon, config.bytes(Key.SERVER_CAPACITY))) {
            return 0;
        }
        Daemon.logConfig(WHO, config, List.of(Key.MASTER_HOST, Key.MASTER_PORT, Key.SERVER_BIND, Key.SERVER_PORT, Key.SERVER_ADVERTISE,
                Key.SERVER_CAPACITY, Key.SHM_DIR, Key.SERVER_PERSISTENCE_DIR, Key.RDMA_DEVICE, Key.SERVER_RDMA_PORT, Key.TIMEOUT, Key.SECRET_FILE, Key.HEARTBEAT, Key.INSECURE,
                Key.MAX_CONNECTIONS, Key.HANDSHAKE_TIMEOUT, Key.FRAME_TIMEOUT, Key.METRICS_PORT, Key.LOG_LEVEL, Key.LOG_FILE), secret);
        RdmaDevice rdma = Daemon.rdma(config, WHO, secret);
        Path shm = config.get(Key.SHM_DIR).isEmpty() ? null : Path.of(config.get(Key.SHM_DIR));
        if (shm != null && !Files.isDirectory(shm)) {
            Daemon.log(WHO, "rstore.shm.dir " + shm + " does not exist: serving over tcp only");
            shm = null;
        }
        Path persistence = config.get(Key.SERVER_PERSISTENCE_DIR).isEmpty() ? null : Path.of(config.get(Key.SERVER_PERSISTENCE_DIR));
        if (persistence != null) {
            Daemon.log(WHO, "chunks kept as files in " + persistence + (ShmChunkFiles.dax(persistence)
                    ? " (DAX: mapped with MAP_SYNC, a flush reaches persistent memory)" : " (not DAX: persist is an msync to the disk)")
                    + "; clients on this host map them there");
        }
        InetSocketAddress at = new InetSocketAddress(bindTo, config.port(Key.SERVER_PORT));
        ServerNode server = ServerNode.start(new ServerNode.Context().master(config.get(Key.MASTER_HOST), config.port(Key.MASTER_PORT)).bind(at)
                .advertise(config.get(Key.SERVER_ADVERTISE)).capacityBytes(config.bytes(Key.SERVER_CAPACITY)).shmDirectory(shm)
                .persistenceDirectory(persistence).rdma(rdma, config.port(Key.SERVER_RDMA_PORT)).secret(secret).timeoutMs(config.millis(Key.TIMEOUT))
                .heartbeatMs(config.millis(Key.HEARTBEAT)).limits(Daemon.limits(config)).log(line -> Daemon.log(WHO, line)));
        String transports = "transports tcp"
                + (server.shmLocation().isEmpty() ? "" : ", shm for clients on this host (chunk files in "
                        + server.shmLocation().substring(server.shmLocation().indexOf(':') + 1) + ")")
                + (server.rdmaAddress().isEmpty() ? "" : ", rdma at " + server.rdmaAddress());
        Daemon.log(WHO, "memory server " + server.id() + " serving " + Units.bytes(config.bytes(Key.SERVER_CAPACITY)) + " at "
                + server.address() + " (" + transports + "), registered with the master at " + config.get(Key.MASTER_HOST) + ":"
                + config.port(Key.MASTER_PORT));
        MetricsEndpoint metrics = Daemon.metrics(server.metrics(), config, bindTo, WHO);
        Daemon.runUntilStopped(WHO, () -> {
            metrics.close();
            server.close();
        });
        return 0;
    }
}

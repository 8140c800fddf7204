package io.rstore.cli;

import io.rstore.RStoreSettings;
import io.rstore.config.Logs;
import io.rstore.config.Units;
import io.rstore.net.NetworkCluster;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

@Command(name = "serve",
        mixinStandardHelpOptions = true,
        header = "Serve a master and memory servers over TCP from this process.",
        description = {"Clients in other processes or on other hosts connect with rstore://HOST:PORT (rstore+tcp:// forces tcp) and use",
                "the same API as the embedded cluster. Runs until stopped (Ctrl-C or SIGTERM)."})
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--bind", defaultValue = "", description = "address to listen on (default: 0.0.0.0 with a cluster secret, 127.0.0.1 without)")
    String bind;

    @Option(names = "--print-jvm-options", hidden = true, description = "print the heap and direct-memory bounds, then exit (bin/rstore)")
    boolean printJvmOptions;

    @Option(names = "--insecure", description = "without a cluster secret, listen on an address other hosts reach anyway")
    boolean insecure;

    @Option(names = {"-p", "--port"}, defaultValue = "7400", description = "port (default: ${DEFAULT-VALUE}; 0 picks a free one)")
    int port;

    @Option(names = "--servers", defaultValue = "2", description = "memory servers (default: ${DEFAULT-VALUE})")
    int servers;

    @Option(names = "--chunk-size", defaultValue = "16MiB", description = "chunk size (default: ${DEFAULT-VALUE})")
    String chunkSize;

    @Option(names = "--capacity", defaultValue = "8GiB", description = "DRAM each memory server may hand out (default: ${DEFAULT-VALUE})")
    String capacity;

    @Option(names = "--shm-dir", defaultValue = "/dev/shm", paramLabel = "DIR",
            description = "chunk files here, for clients on this host to map (default: ${DEFAULT-VALUE}; empty or absent: tcp only)")
    String shmDir;

    @Option(names = "--secret-file", paramLabel = "FILE", description = "require clients to prove this secret (first line of FILE; else $RSTORE_SECRET; else none)")
    Path secretFile;

    @Override
    public Integer call() throws InterruptedException {
        RStoreSettings settings = RStoreSettings.defaults().withMemoryServers(servers)
                .withChunkSizeBytes(Units.parseBytes(chunkSize)).withServerCapacityBytes(Units.parseBytes(capacity))
                .withClusterSecret(Secrets.from(secretFile));
        if (printJvmOptions) {
            Logs.quiet();
        }
        String bindTo = Daemon.bindAddress(bind, settings.clusterSecret(), insecure, "rstore serve");
        if (printJvmOptions) {
            System.out.println(Daemon.jvmOptions(servers * settings.serverCapacityBytes()));
            return 0;
        }
        Path shm = shmDir.isEmpty() || !Files.isDirectory(Path.of(shmDir)) ? null : Path.of(shmDir);
        NetworkCluster cluster = NetworkCluster.start(settings, new InetSocketAddress(bindTo, port), shm);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            stopped.countDown();
        }));
        // stdout carries the port so scripts (and tests) can find it
        System.out.println("rstore serving on " + bindTo + ":" + cluster.port() + " (" + (shm == null ? "transport tcp" : "transports tcp and shm in " + shm)
                + ", master and " + servers
                + " memory servers of " + capacity + ", chunks of " + chunkSize + ", "
                + (settings.clusterSecret().isEmpty() ? "no cluster secret: anyone who can connect is let in" : "cluster secret required") + ")");
        System.out.flush();
        stopped.await();
        return 0;
    }
}

package io.rstore.net;

import com.codahale.metrics.MetricRegistry;
import io.rstore.ErrorCode;
import io.rstore.protocol.ServerRegistration;
import io.rstore.protocol.wire.ChunkCalls;
import io.rstore.protocol.wire.RemoteMaster;
import io.rstore.server.MemoryServer;
import io.rstore.server.ShmChunkFiles;
import io.rstore.transport.rdma.RdmaDevice;
import io.rstore.transport.tcp.TcpCallConnection;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * The memory server daemon: a {@link MemoryServer} served over TCP. It listens first, then
 * registers with the master, which connects back to manage its chunks (proving the control
 * token the server made up for it) while clients connect to read and write them. Once
 * registered it needs the master for nothing on the data path: if the master dies,
 * mapped segments here stay readable and writable.
 *
 * <p>It repeats its registration every heartbeat on a connection of its own (a no-op while
 * the master knows it): when the master restarts, or lost it, the server reconnects and
 * registers again within a heartbeat of the master being back, reporting the chunks it
 * holds, which a master that does not know them has it release.
 */
public final class ServerNode implements AutoCloseable {
    private final MemoryServer memory;
    private final TcpServer tcp;
    private final String address;
    private final String masterHost;
    private final int masterPort;
    private final String secret;
    private final String token;
    private final String identity; // kept in the persistence directory, else this process's own
    private final int timeoutMs;
    private final Consumer<String> log;
    private final MetricRegistry metrics = new MetricRegistry();
    private volatile int id = -1;
    private volatile boolean closed;
    private RemoteMaster master; // the registration connection; null while the master is unreachable
    private Thread rejoin;

    /**
     * How a memory server starts: {@link DaemonContext}'s settings, and its master, the host
     * it advertises, its capacity, where its chunks live (memory, shm files, a persistence
     * directory).
     */
    public static final class Context extends DaemonContext<Context> {
        private String masterHost = "127.0.0.1";
        private int masterPort = -1;
        private String advertiseHost = "";
        private long capacityBytes = -1;
        private Path shmDirectory;
        private Path persistenceDirectory;

        /** The master to register with (required). */
        public Context master(String host, int port) {
            this.masterHost = host;
            this.masterPort = port;
            return this;
        }

        /** The host clients reach this server at (empty, the default: {@link ServerNode#reachableHost} of the bind address). */
        public Context advertise(String host) {
            this.advertiseHost = host;
            return this;
        }

        /** Bytes of chunk memory it serves (required). */
        public Context capacityBytes(long bytes) {
            this.capacityBytes = bytes;
            return this;
        }

        /** Chunks as files in {@code directory}, which clients on this host map directly (null, the default: none). */
        public Context shmDirectory(Path directory) {
            this.shmDirectory = directory;
            return this;
        }

        /** Chunks as files kept in {@code directory} across restarts, taken back when the server starts (null, the default: none). */
        public Context persistenceDirectory(Path directory) {
            this.persistenceDirectory = directory;
            return this;
        }

        private void conclude() {
            if (masterHost == null || masterHost.isEmpty() || masterPort < 1 || masterPort > 65_535) {
                throw new IllegalArgumentException("a memory server needs its master's host and port (Context.master), was " + masterHost + ":" + masterPort);
            }
            if (capacityBytes < 1) {
                throw new IllegalArgumentException("a memory server needs a capacity of at least one byte (Context.capacityBytes), was " + capacityBytes);
            }
            conclude("a memory server");
        }
    }

    private ServerNode(Context c) throws IOException {
        this.memory = new MemoryServer(c.capacityBytes, c.persistenceDirectory != null ? ShmChunkFiles.persistent(c.persistenceDirectory)
                : c.shmDirectory == null ? null : new ShmChunkFiles(c.shmDirectory));
        this.masterHost = c.masterHost;
        this.masterPort = c.masterPort;
        this.secret = c.secret;
        this.timeoutMs = (int) Math.min(c.timeoutMs, Integer.MAX_VALUE);
        this.log = c.log;
        InetSocketAddress bind = c.bind;
        String advertiseHost = c.advertiseHost;
        RdmaDevice rdma = c.rdma;
        int rdmaPort = c.rdmaPort;
        NetLimits limits = c.limits;
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        this.token = HexFormat.of().formatHex(random);
        new SecureRandom().nextBytes(random);
        this.identity = memory.durable() ? memory.identity() : "process-" + HexFormat.of().formatHex(random);
        try {
            this.tcp = new TcpServer(bind, peer -> ChunkCalls.handler(memory, token), server -> server == id ? memory.regions() : null, secret,
                    limits, new ServerMetrics(metrics, "rstore.server"));
        } catch (IOException | RuntimeException e) {
            memory.close(); // its shm directory, if any, goes too
            throw e;
        }
        String host = advertiseHost == null || advertiseHost.isEmpty() ? reachableHost(bind) : advertiseHost;
        this.address = new TcpAddress(host, tcp.port()).toString();
        metrics.gauge("rstore.server.capacity.bytes", () -> memory::capacityBytes);
        metrics.gauge("rstore.server.used.bytes", () -> memory::usedBytes);
        metrics.gauge("rstore.server.chunks", () -> () -> memory.chunkIds().length);
        try {
            if (rdma != null) {
                memory.enableRdma(rdma, new InetSocketAddress(bind.getAddress(), rdmaPort), host);
            }
            this.id = register();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Listens where {@code context} says and registers with the master as reachable at its
     * advertised host. With a shm directory its chunks are files there, which clients on
     * this host map directly; with a persistence directory they are files there too, kept
     * across restarts (taken back when the server starts), and clients on this host map them
     * there instead; with an RDMA device they are registered on it. Registers again every
     * heartbeat, saying what happened through the context's log.
     */
    public static ServerNode start(Context context) {
        context.conclude();
        ServerNode node;
        try {
            node = new ServerNode(context);
        } catch (IOException e) {
            throw ErrorCode.CANNOT_LISTEN.exception("the memory server cannot listen on " + context.bind + ": " + e.getMessage() + " (pick another port)");
        }
        node.rejoin = Thread.ofPlatform().name("rstore-rejoin").daemon().start(() -> node.rejoinEvery(context.heartbeatMs));
        return node;
    }

    /** Registers (again) on the registration connection, opening it if it is not open; returns the id the master gave. */
    private synchronized int register() {
        if (master == null) {
            master = new RemoteMaster(TcpCallConnection.toMaster(masterHost, masterPort, timeoutMs, secret));
        }
        try {
            return master.registerServer(new ServerRegistration(address, memory.shmLocation(), memory.rdmaAddress(), memory.capacityBytes(), token,
                    identity, memory.durable(), memory.chunks()));
        } catch (RuntimeException e) {
            master.close();
            master = null;
            throw e;
        }
    }

    private void rejoinEvery(long heartbeatMs) {
        boolean lost = false;
        while (!closed) {
            try {
                Thread.sleep(heartbeatMs);
            } catch (InterruptedException e) {
                return;
            }
            if (memory.stopped()) {
                continue; // it serves nothing: it must not tell the master it is alive (the master would take it back under its identity)
            }
            try {
                int now = register();
                if (now != id || lost) {
                    log.accept("registered with the master at " + masterHost + ":" + masterPort + " again, as memory server " + now
                            + (now != id ? " (was " + id + ")" : ""));
                    id = now;
                }
                lost = false;
            } catch (RuntimeException e) {
                if (!lost && !closed) {
                    log.accept("lost the master (" + e.getMessage() + "); trying again every " + heartbeatMs + " ms");
                }
                lost = true;
            }
        }
    }

    /** Where others reach a server bound to {@code bind}: the bind address, or this host's name when bound to all. */
    public static String reachableHost(InetSocketAddress bind) {
        if (!bind.getAddress().isAnyLocalAddress()) {
            return bind.getAddress().getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("this host has no resolvable name (" + e.getMessage()
                    + "); set rstore.server.advertise (--advertise) to the address others reach it at");
        }
    }

    /** The id the master gave this server. */
    public int id() {
        return id;
    }

    /** Where clients on this host find its chunk files ({@code BOOT-ID:DIRECTORY}), or empty. */
    public String shmLocation() {
        return memory.shmLocation();
    }

    /** Where clients reach its chunks over RDMA ({@code DEVICE://HOST:PORT}), or empty. */
    public String rdmaAddress() {
        return memory.rdmaAddress();
    }

    /** Where clients and the master reach it. */
    public String address() {
        return address;
    }

    public int port() {
        return tcp.port();
    }

    public MemoryServer memory() {
        return memory;
    }

    /** The server's metrics: chunk calls, one-sided reads and writes and their bytes, connections, capacity, use, chunks. */
    public MetricRegistry metrics() {
        return metrics;
    }

    @Override
    public void close() {
        closed = true;
        if (rejoin != null) {
            rejoin.interrupt();
        }
        synchronized (this) {
            if (master != null) {
                master.close();
                master = null;
            }
        }
        tcp.close();
        memory.close();
    }
}

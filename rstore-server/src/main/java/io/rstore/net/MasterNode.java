package io.rstore.net;

import com.codahale.metrics.MetricRegistry;
import io.rstore.ErrorCode;
import io.rstore.config.Logs;
import io.rstore.config.Units;
import io.rstore.master.Master;
import io.rstore.protocol.ServerInfo;
import io.rstore.protocol.wire.MasterService;
import io.rstore.protocol.wire.RemoteChunkService;
import io.rstore.transport.rdma.MessageBudget;
import io.rstore.transport.rdma.RdmaControl;
import io.rstore.transport.rdma.RdmaDevice;
import io.rstore.transport.tcp.TcpCallConnection;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The master daemon: the {@link Master} served over TCP. Memory server daemons register
 * with it ({@link ServerNode}); it connects back to each and pings it every heartbeat, so
 * a server that dies (or whose host does) is marked dead within a heartbeat plus the call
 * timeout, and {@code rstore status} shows it.
 */
public final class MasterNode implements AutoCloseable {
    private final Master master;
    private final TcpServer tcp;
    private final Thread heartbeat;
    private final RdmaDevice rdma;                 // null: control calls over tcp only
    private final RdmaDevice.Listener rdmaListener;
    private final MetricRegistry metrics = new MetricRegistry();
    private volatile boolean closed;

    /** How a master starts: {@link DaemonContext}'s settings, and the cluster's chunk size, who may register servers, where the journal goes. */
    public static final class Context extends DaemonContext<Context> {
        private long chunkSizeBytes = -1;
        private boolean remoteServers;
        private Path persistenceDirectory;

        /** The cluster's chunk size (required). */
        public Context chunkSizeBytes(long bytes) {
            this.chunkSizeBytes = bytes;
            return this;
        }

        /** Whether memory servers on other hosts may register without a cluster secret (default: no). */
        public Context remoteServers(boolean allowed) {
            this.remoteServers = allowed;
            return this;
        }

        /** Journals the metadata in {@code directory} and replays it first (null, the default: memory only). */
        public Context persistenceDirectory(Path directory) {
            this.persistenceDirectory = directory;
            return this;
        }

        private void conclude() {
            if (chunkSizeBytes < 1) {
                throw new IllegalArgumentException("a master needs a chunk size of at least one byte (Context.chunkSizeBytes), was " + chunkSizeBytes);
            }
            conclude("a master");
        }
    }

    private MasterNode(Context c) throws IOException {
        long chunkSizeBytes = c.chunkSizeBytes;
        InetSocketAddress bind = c.bind;
        String secret = c.secret;
        long timeoutMs = c.timeoutMs;
        long heartbeatMs = c.heartbeatMs;
        RdmaDevice rdma = c.rdma;
        int rdmaPort = c.rdmaPort;
        NetLimits limits = c.limits;
        boolean remoteServers = c.remoteServers;
        Path persistenceDirectory = c.persistenceDirectory;
        Consumer<String> log = c.log;
        int callTimeout = (int) Math.min(timeoutMs, Integer.MAX_VALUE);
        String required = secret == null ? "" : secret;
        this.master = new Master(chunkSizeBytes, (address, token) -> {
            TcpAddress at = TcpAddress.parse(address);
            TcpCallConnection connection = TcpCallConnection.toServer(at.host(), at.port(), callTimeout, secret);
            try {
                RemoteChunkService service = new RemoteChunkService(connection, token);
                log.accept("memory server at " + address + " joined with " + Units.bytes(service.capacityBytes()));
                return service;
            } catch (RuntimeException e) {
                connection.close();
                throw e;
            }
        }, persistenceDirectory, log);
        MasterService service = new MasterService(master);
        master.registerGauges(metrics);
        try {
            this.tcp = new TcpServer(bind, peer -> service.connection(registrationRefused(peer, required, remoteServers)), id -> null, secret, limits,
                    new ServerMetrics(metrics, "rstore.master"));
        } catch (IOException | RuntimeException e) {
            master.closeJournal(); // unlocks the persistence directory
            throw e;
        }
        this.rdma = rdma;
        MessageBudget messageBudget = new MessageBudget(limits.rdmaMessageBytes());
        this.rdmaListener = rdma == null ? null : rdma.listen(new InetSocketAddress(bind.getAddress(), rdmaPort),
                () -> RdmaControl.serving(service.connection(registrationRefused(null, required, remoteServers)), required, messageBudget),
                new RdmaDevice.ListenerLimits(limits.maxConnections(), limits.maxPendingHandshakes(), limits.maxPendingPerSource(),
                        limits.handshakeTimeoutMs()));
        this.heartbeat = Thread.ofPlatform().name("rstore-heartbeat").daemon().start(() -> {
            while (!closed) {
                for (ServerInfo dead : master.checkServers()) { // a warning: stopped on purpose or not, its chunks cannot be reached now
                    Logs.get("rstore master").warn("memory server " + dead.id() + " at " + dead.address()
                            + " stopped answering; marked dead " + (dead.durable()
                            ? "until it rejoins (its chunks are kept in its persistence directory; reads of them fail with SERVER_UNAVAILABLE meanwhile)"
                            : "(it keeps no persistence directory: the data of its chunks is lost)"));
                }
                try {
                    Thread.sleep(heartbeatMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    /**
     * Who may register a memory server (which then gets chunks of every namespace): with a
     * cluster secret, whoever proved it; without one, only a peer on this host, unless the
     * operator allows {@code remoteServers}. Null when {@code peer} may; else the reason.
     */
    static String registrationRefused(SocketAddress peer, String secret, boolean remoteServers) {
        if (!secret.isEmpty() || remoteServers || (peer instanceof InetSocketAddress at && onThisHost(at.getAddress()))) {
            return null;
        }
        return "without a cluster secret, memory servers may register only from the master's own host; give the cluster a secret"
                + " (rstore.secret.file) or allow remote servers (rstore.master.remote-servers = true, --allow-remote-servers)";
    }

    private static boolean onThisHost(InetAddress address) {
        try {
            return address != null && (address.isLoopbackAddress() || NetworkInterface.getByInetAddress(address) != null);
        } catch (SocketException e) {
            return false;
        }
    }

    /**
     * Starts serving where {@code context} says, over tcp and, with an RDMA device, over RDMA
     * too; with a persistence directory the metadata is journaled there and replayed first.
     */
    public static MasterNode start(Context context) {
        context.conclude();
        try {
            return new MasterNode(context);
        } catch (IOException e) {
            throw ErrorCode.CANNOT_LISTEN.exception("the master cannot listen on " + context.bind + ": " + e.getMessage()
                    + " (is another rstore master there? pick another port)");
        }
    }

    /** The connections the tcp port serves at once (the configured limit, or less where descriptors allow fewer). */
    public int maxConnections() {
        return tcp.maxConnections();
    }

    public int port() {
        return tcp.port();
    }

    public Master master() {
        return master;
    }

    /** The master's metrics: its calls (rstore.master.call.NAME), errors, bytes, connections, and gauges of its state. */
    public MetricRegistry metrics() {
        return metrics;
    }

    /** The port of the RDMA listener for control calls, or -1 if there is none. */
    public int rdmaPort() {
        return rdmaListener == null ? -1 : rdmaListener.port();
    }

    /** {@code disni} or {@code emulated}, or empty. */
    public String rdmaKind() {
        return rdma == null ? "" : rdma.kind();
    }

    @Override
    public void close() {
        closed = true;
        heartbeat.interrupt();
        tcp.close();
        master.closeJournal();
        if (rdma != null) {
            rdmaListener.close();
            rdma.close();
        }
    }
}

package io.rstore;

import com.codahale.metrics.MetricRegistry;
import io.rstore.internal.ClientMetrics;
import io.rstore.memory.LocalMemory;
import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.ClusterInfo;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.ServerInfo;
import io.rstore.spi.ClusterProvider;
import io.rstore.transport.Endpoint;
import io.rstore.transport.Transport;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A client session with an RStore cluster: the entry point of the API.
 *
 * <pre>{@code
 * try (RStore rstore = RStore.embedded()) {
 *     Namespace ns = rstore.createNamespace("demo");
 *     RAddress seg = ns.alloc(1 << 20, AllocFlags.GROW);
 *     try (Mapping m = seg.map(MapFlags.NONE)) {
 *         m.segment().set(ValueLayout.JAVA_LONG, 0, 42);
 *         m.write(0, 8);
 *     }
 * }
 * }</pre>
 *
 * Cluster URIs: {@code inproc://NAME} (an embedded cluster in this JVM),
 * {@code rstore://HOST:PORT} (a master; transport chosen automatically),
 * {@code rstore+tcp|shm|rdma://HOST:PORT} (a master, transport forced).
 */
public final class RStore implements AutoCloseable {
    /** The well-known address of every namespace's first segment, used to bootstrap. */
    public static final long RSTORE_INIT_RADDRESS = 0;

    /** This RStore's version: the daemons and tools report it. */
    public static final String VERSION = "0.1.0";

    private final MasterProtocol master;
    private final Transport transport;
    private final RStoreSettings settings;
    private final long session;
    private final LocalMemory localMemory;
    private final ClientMetrics metrics = new ClientMetrics();
    private final Runnable onClose;
    private final String uri;
    private final Set<Mapping> mappings = ConcurrentHashMap.newKeySet();
    private volatile Endpoint[] endpoints = new Endpoint[0];
    private volatile boolean closed;

    private RStore(String uri, MasterProtocol master, Transport transport, RStoreSettings settings, String clientName, Runnable onClose) {
        this.uri = uri;
        this.master = master;
        this.transport = transport;
        this.settings = settings;
        this.onClose = onClose;
        this.localMemory = new LocalMemory(settings.localArenaBytes(), settings.localCacheBytes(), transport.localRegistrar());
        this.session = master.openSession(clientName);
    }

    /** Starts an embedded cluster with default settings; closing the client stops it. */
    public static RStore embedded() {
        return embedded(RStoreSettings.defaults());
    }

    /** Starts an embedded cluster (master and memory servers in this JVM); closing the client stops it. */
    public static RStore embedded(RStoreSettings settings) {
        for (ClusterProvider provider : ServiceLoader.load(ClusterProvider.class)) {
            RStore client = provider.embedded(settings);
            if (client != null) {
                return client;
            }
        }
        throw ErrorCode.UNSUPPORTED.exception("no embedded cluster on the class path: add the rstore-server module");
    }

    public static RStore connect(String uri) {
        return connect(uri, RStoreSettings.defaults());
    }

    /** A client of the cluster at {@code uri} (see the class comment for the forms). */
    public static RStore connect(String uri, RStoreSettings settings) {
        URI parsed;
        try {
            parsed = new URI(uri);
        } catch (URISyntaxException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + uri + "' is not a cluster URI: " + e.getMessage()
                    + "; use inproc://NAME or rstore://HOST:PORT");
        }
        String scheme = parsed.getScheme();
        if (scheme == null) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + uri + "' has no scheme; use inproc://NAME or rstore://HOST:PORT");
        }
        for (ClusterProvider provider : ServiceLoader.load(ClusterProvider.class)) {
            if (provider.schemes().contains(scheme)) {
                return provider.connect(parsed, settings);
            }
        }
        throw ErrorCode.UNSUPPORTED.exception("no transport on the class path serves '" + scheme + "://' URIs"
                + " (known: inproc:// with rstore-server on the class path; rstore://, rstore+tcp://, rstore+shm://, rstore+rdma://)");
    }

    /** For cluster providers: a client session over a master and a transport; {@code onClose} runs after close. */
    public static RStore attach(String uri, MasterProtocol master, Transport transport, RStoreSettings settings, String clientName, Runnable onClose) {
        return new RStore(uri, master, transport, settings, clientName, onClose);
    }

    /** The cluster's URI: other clients (threads or processes) connect to it with {@link #connect(String)}. */
    public String uri() {
        return uri;
    }

    public Namespace createNamespace(String name) {
        return createNamespace(name, NamespaceFlags.NONE);
    }

    /** A new namespace with {@link NamespaceFlags}, e.g. {@link NamespaceFlags#DURABLE}. */
    public Namespace createNamespace(String name, int flags) {
        NamespaceInfo info = rpc("createNamespace", () -> master.createNamespace(session, name, flags));
        return new Namespace(this, info.id(), info.name());
    }

    public Namespace joinNamespace(String name) {
        NamespaceInfo info = rpc("joinNamespace", () -> master.joinNamespace(session, name));
        return new Namespace(this, info.id(), info.name());
    }

    /** Deletes a namespace and gives its memory back; fails with SEGMENT_IN_USE while anything in it is mapped. */
    public void deleteNamespace(String name) {
        rpc("deleteNamespace", () -> {
            master.deleteNamespace(session, name);
            return null;
        });
    }

    public List<NamespaceInfo> namespaces() {
        return rpc("namespaces", () -> master.namespaces(session));
    }

    public List<ServerInfo> servers() {
        return rpc("servers", master::servers);
    }

    /** The master's version, uptime and the age of each memory server's last heartbeat. */
    public ClusterInfo clusterInfo() {
        return rpc("clusterInfo", master::clusterInfo);
    }

    /** The cluster's client sessions, with the mapping references each holds. */
    public List<ClientInfo> clients() {
        return rpc("clients", master::clients);
    }

    public RStoreSettings settings() {
        return settings;
    }

    public String transportName() {
        return transport.name();
    }

    /** The transport this client uses to reach {@code server} (auto picks per server). */
    public String transportTo(ServerInfo server) {
        return transport.routeTo(server);
    }

    /** Latency timers and byte meters of the data path, RPC timers of the control path. */
    public MetricRegistry metrics() {
        return metrics.registry;
    }

    /** Bytes of local memory this client holds in arenas (mapped or cached for reuse). */
    public long localMemoryHeldBytes() {
        return localMemory.heldBytes();
    }

    /**
     * Drops every reference this client holds, unmaps everything and stops an owned embedded
     * cluster. Succeeds even when the master is gone.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Mapping mapping : new ArrayList<>(mappings)) {
            mapping.releaseLocal();
        }
        mappings.clear();
        try {
            master.closeSession(session);
        } catch (RStoreException e) {
            if (!masterGone(e)) { // an unreachable master drops the session when the connection ends
                throw e;
            }
        } finally {
            for (Endpoint endpoint : endpoints) {
                if (endpoint != null) {
                    endpoint.close();
                }
            }
            localMemory.close(); // deregisters its arenas while the transport's devices are still open
            transport.close();
            if (onClose != null) {
                onClose.run();
            }
        }
    }

    /** Whether a failure means the master cannot be reached (as opposed to refusing the call). */
    static boolean masterGone(RStoreException e) {
        return e.code() == ErrorCode.MASTER_UNAVAILABLE || e.code() == ErrorCode.TIMED_OUT;
    }

    // ---- used by Namespace, RAddress and Mapping ----

    MasterProtocol master() {
        return master;
    }

    long session() {
        return session;
    }

    LocalMemory localMemory() {
        return localMemory;
    }

    LocalMemory.Registrar localRegistrar() {
        return transport.localRegistrar();
    }

    ClientMetrics clientMetrics() {
        return settings.metricsEnabled() ? metrics : null;
    }

    long operationTimeoutNanos() {
        return TimeUnit.MILLISECONDS.toNanos(settings.operationTimeoutMs());
    }

    boolean isClosed() {
        return closed;
    }

    void track(Mapping mapping) {
        mappings.add(mapping);
    }

    void untrack(Mapping mapping) {
        mappings.remove(mapping);
    }

    /** The cached connection to a memory server, opened on first use. Control path. */
    Endpoint endpoint(int serverId) {
        Endpoint[] cached = endpoints;
        if (serverId < cached.length && cached[serverId] != null) {
            return cached[serverId];
        }
        synchronized (this) {
            cached = endpoints;
            if (serverId >= cached.length) {
                cached = Arrays.copyOf(cached, serverId + 1);
            }
            if (cached[serverId] == null) {
                cached[serverId] = transport.connect(server(serverId), this::server);
            }
            endpoints = cached;
            return cached[serverId];
        }
    }

    /** Memory server {@code serverId} as the master knows it now. Control path. */
    private ServerInfo server(int serverId) {
        return servers().stream().filter(s -> s.id() == serverId).findFirst()
                .orElseThrow(() -> ErrorCode.SERVER_UNAVAILABLE.exception("the master does not know memory server " + serverId));
    }

    /** A control-path call on the master, timed. */
    <T> T rpc(String name, Supplier<T> call) {
        if (closed) {
            throw ErrorCode.CLOSED.exception("this RStore client was closed");
        }
        long start = System.nanoTime();
        try {
            return call.get();
        } finally {
            metrics.rpc(name).update(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }
}

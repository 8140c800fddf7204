package io.rstore.embedded;

import io.rstore.ErrorCode;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.master.Master;
import io.rstore.protocol.wire.MasterService;
import io.rstore.protocol.wire.RemoteMaster;
import io.rstore.server.MemoryServer;
import io.rstore.transport.RegionTable;
import io.rstore.transport.inproc.InprocTransport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A master and K memory servers in this JVM, reached over the inproc transport: the
 * default cluster, and the one tests hammer. Known in the JVM by its name, so more
 * clients can attach with {@code RStore.connect("inproc://NAME")}.
 */
public final class EmbeddedCluster implements AutoCloseable {
    private static final ConcurrentMap<String, EmbeddedCluster> RUNNING = new ConcurrentHashMap<>();

    private final RStoreSettings settings;
    private final Master master;
    private final MasterService masterService;
    private final List<MemoryServer> servers = new ArrayList<>();
    private volatile boolean closed;

    private EmbeddedCluster(RStoreSettings settings) {
        this.settings = settings;
        this.master = new Master(settings.chunkSizeBytes());
        this.masterService = new MasterService(master);
        for (int i = 0; i < settings.memoryServers(); i++) {
            MemoryServer server = new MemoryServer(settings.serverCapacityBytes());
            int id = master.registerServer("inproc://" + settings.clusterName() + "/" + i, server);
            assert id == i;
            servers.add(server);
        }
    }

    /** Starts a cluster named by the settings; INVALID_ARGUMENT if that name is running in this JVM. */
    public static EmbeddedCluster start(RStoreSettings settings) {
        EmbeddedCluster cluster = new EmbeddedCluster(settings);
        if (RUNNING.putIfAbsent(settings.clusterName(), cluster) != null) {
            cluster.closeServers();
            throw ErrorCode.INVALID_ARGUMENT.exception("an embedded cluster named '" + settings.clusterName()
                    + "' is already running in this JVM; pick another clusterName or connect to inproc://" + settings.clusterName());
        }
        return cluster;
    }

    /** Starts a cluster under the settings' name, or that name with a numeric suffix if it is taken. */
    public static EmbeddedCluster startUniquelyNamed(RStoreSettings settings) {
        String base = settings.clusterName();
        for (int i = 1; ; i++) {
            String name = i == 1 ? base : base + "-" + i;
            if (!RUNNING.containsKey(name)) {
                try {
                    return start(settings.withClusterName(name));
                } catch (RStoreException raced) {
                    // another thread took the name between the check and the start: try the next
                }
            }
        }
    }

    /** The running cluster of that name, or null. */
    public static EmbeddedCluster find(String name) {
        return RUNNING.get(name);
    }

    public String name() {
        return settings.clusterName();
    }

    public String uri() {
        return "inproc://" + settings.clusterName();
    }

    public RStoreSettings settings() {
        return settings;
    }

    public Master master() {
        return master;
    }

    public MemoryServer server(int id) {
        return servers.get(id);
    }

    public int serverCount() {
        return servers.size();
    }

    /** A new client session; closing it leaves the cluster running. */
    public RStore connect(String clientName) {
        return connect(clientName, null);
    }

    RStore connect(String clientName, Runnable onClose) {
        if (closed) {
            throw ErrorCode.CLOSED.exception("embedded cluster '" + name() + "' was stopped");
        }
        InprocTransport transport = new InprocTransport(this::regions);
        return RStore.attach(uri(), new RemoteMaster(this::loopback), transport, settings, clientName, onClose);
    }

    /**
     * Master calls go through the same frames as over a network, copied as a wire would,
     * so the embedded default exercises the protocol codec on every control-path call.
     */
    private ByteBuffer loopback(ByteBuffer request) {
        ByteBuffer onTheWire = ByteBuffer.allocate(request.remaining()).put(request).flip();
        return masterService.handle(onTheWire);
    }

    private RegionTable regions(int serverId) {
        return serverId >= 0 && serverId < servers.size() ? servers.get(serverId).regions() : null;
    }

    /** Simulates a failed memory server: its operations fail with SERVER_UNAVAILABLE; the master marks it dead. */
    public void stopServer(int id) {
        servers.get(id).stop();
        master.markDead(id);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            RUNNING.remove(settings.clusterName(), this);
            closeServers();
        }
    }

    private void closeServers() {
        servers.forEach(MemoryServer::close);
    }
}

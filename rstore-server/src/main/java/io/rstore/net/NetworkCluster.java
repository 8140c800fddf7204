package io.rstore.net;

import io.rstore.RStoreSettings;
import io.rstore.master.Master;
import io.rstore.server.MemoryServer;
import io.rstore.transport.rdma.RdmaEnvironment;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A master daemon and K memory server daemons in one process ({@code rstore serve}),
 * each on its own port and joined by the same protocol as daemons on separate hosts.
 * Clients in other processes or on other hosts connect with {@code rstore+tcp://HOST:PORT}
 * (the master's port).
 */
public final class NetworkCluster implements AutoCloseable {
    private static final long HEARTBEAT_MS = 1_000;
    private final MasterNode master;
    private final List<ServerNode> servers = new ArrayList<>();

    private NetworkCluster(RStoreSettings settings, InetSocketAddress bind, Path shmDirectory, String rdmaDevice) {
        this.master = MasterNode.start(new MasterNode.Context().chunkSizeBytes(settings.chunkSizeBytes()).bind(bind).secret(settings.clusterSecret())
                .timeoutMs(settings.operationTimeoutMs()).heartbeatMs(HEARTBEAT_MS).rdma(RdmaEnvironment.open(rdmaDevice, settings.clusterSecret()), 0));
        try {
            String masterHost = bind.getAddress().isAnyLocalAddress() ? "127.0.0.1" : bind.getAddress().getHostAddress();
            for (int i = 0; i < settings.memoryServers(); i++) {
                servers.add(ServerNode.start(new ServerNode.Context().master(masterHost, master.port()).bind(new InetSocketAddress(bind.getAddress(), 0))
                        .capacityBytes(settings.serverCapacityBytes()).shmDirectory(shmDirectory)
                        .rdma(RdmaEnvironment.open(rdmaDevice, settings.clusterSecret()), 0).secret(settings.clusterSecret())
                        .timeoutMs(settings.operationTimeoutMs()).heartbeatMs(HEARTBEAT_MS)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Starts serving on {@code bind} (port 0: any free port for the master; the servers always take free ports), over tcp only. */
    public static NetworkCluster start(RStoreSettings settings, InetSocketAddress bind) {
        return new NetworkCluster(settings, bind, null, "none");
    }

    /** As {@link #start(RStoreSettings, InetSocketAddress)}, with chunk files under {@code shmDirectory} for clients on this host. */
    public static NetworkCluster start(RStoreSettings settings, InetSocketAddress bind, Path shmDirectory) {
        return new NetworkCluster(settings, bind, shmDirectory, "none");
    }

    /**
     * As {@link #start(RStoreSettings, InetSocketAddress)}, each server's chunks also on an
     * RDMA device of its own: {@code emulated}, or {@code disni} (a real card; bind to its address).
     */
    public static NetworkCluster startWithRdma(RStoreSettings settings, InetSocketAddress bind, String device) {
        return new NetworkCluster(settings, bind, null, device);
    }

    /** The master's port. */
    public int port() {
        return master.port();
    }

    /** The URI of the master's RDMA listener, or null if the cluster has no RDMA device. */
    public String rdmaUri(String host) {
        return master.rdmaPort() < 0 ? null
                : "rstore+rdma://" + host + ":" + master.rdmaPort() + (master.rdmaKind().equals("emulated") ? "?device=emulated" : "");
    }

    /** The port memory server {@code id} listens on. */
    public int serverPort(int id) {
        return servers.get(id).port();
    }

    public Master master() {
        return master.master();
    }

    public MemoryServer server(int id) {
        return servers.get(id).memory();
    }

    /** Simulates a failed memory server: its operations fail with SERVER_UNAVAILABLE; the master marks it dead. */
    public void stopServer(int id) {
        servers.get(id).memory().stop();
        master.master().markDead(id);
    }

    @Override
    public void close() {
        master.close();
        servers.forEach(ServerNode::close);
    }
}

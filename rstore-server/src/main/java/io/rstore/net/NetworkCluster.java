package io.rstore.net;

import io.rstore.ErrorCode;
import io.rstore.RStoreSettings;
import io.rstore.master.Master;
import io.rstore.protocol.wire.MasterService;
import io.rstore.server.MemoryServer;
import io.rstore.transport.RegionTable;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A master and K memory servers in one process, served over TCP on one port: clients in
 * other processes or on other hosts connect with {@code rstore+tcp://HOST:PORT}. (Memory
 * servers as separate daemons come with the server-to-master protocol.)
 */
public final class NetworkCluster implements AutoCloseable {
    private final Master master;
    private final List<MemoryServer> servers = new ArrayList<>();
    private final TcpServer tcp;

    private NetworkCluster(RStoreSettings settings, InetSocketAddress bind) throws IOException {
        this.master = new Master(settings.chunkSizeBytes());
        this.tcp = new TcpServer(bind, new MasterService(master), master, this::regions, settings.clusterSecret());
        for (int i = 0; i < settings.memoryServers(); i++) {
            MemoryServer server = new MemoryServer(settings.serverCapacityBytes());
            servers.add(server);
            master.registerServer("rstore+tcp://:" + tcp.port() + "/" + i, server);
        }
    }

    /** Starts serving on {@code bind} (port 0: any free port). */
    public static NetworkCluster start(RStoreSettings settings, InetSocketAddress bind) {
        try {
            return new NetworkCluster(settings, bind);
        } catch (IOException e) {
            throw ErrorCode.UNKNOWN.exception("cannot listen on " + bind + ": " + e.getMessage()
                    + " (is another rstore serving there? pick another --port)");
        }
    }

    public int port() {
        return tcp.port();
    }

    public Master master() {
        return master;
    }

    public MemoryServer server(int id) {
        return servers.get(id);
    }

    /** Simulates a failed memory server: its operations fail with SERVER_UNAVAILABLE; the master marks it dead. */
    public void stopServer(int id) {
        servers.get(id).stop();
        master.markDead(id);
    }

    private RegionTable regions(int id) {
        return id >= 0 && id < servers.size() ? servers.get(id).regions() : null;
    }

    @Override
    public void close() {
        tcp.close();
        servers.forEach(MemoryServer::close);
    }
}

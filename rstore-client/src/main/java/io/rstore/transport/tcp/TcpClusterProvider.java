package io.rstore.transport.tcp;

import io.rstore.ErrorCode;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.protocol.wire.RemoteMaster;
import io.rstore.spi.ClusterProvider;
import io.rstore.transport.AutoTransport;
import io.rstore.transport.Transport;
import io.rstore.transport.shm.ShmTransport;

import java.net.URI;
import java.util.Set;

/**
 * Serves a master reached over TCP: {@code rstore+tcp://HOST:PORT} (data over tcp),
 * {@code rstore+shm://HOST:PORT} (data through shared memory; every server must be on
 * this host) and {@code rstore://HOST:PORT} (auto: shm for servers on this host, rdma
 * for servers on an RDMA device this host can use, tcp for the others). A master reached
 * over RDMA is {@code rstore+rdma://}: {@link io.rstore.transport.rdma.RdmaClusterProvider}.
 */
public final class TcpClusterProvider implements ClusterProvider {
    public static final int DEFAULT_PORT = 7400;

    @Override
    public Set<String> schemes() {
        return Set.of("rstore", "rstore+tcp", "rstore+shm");
    }

    @Override
    public RStore connect(URI uri, RStoreSettings settings) {
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + uri + "' names no host; use rstore://HOST:PORT");
        }
        int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
        int timeout = (int) Math.min(settings.operationTimeoutMs(), Integer.MAX_VALUE);
        TcpCallConnection master = TcpCallConnection.toMaster(host, port, timeout, settings.clusterSecret());
        try {
            String canonical = uri.getScheme() + "://" + host + ":" + port;
            TcpTransport tcp = new TcpTransport(settings.operationTimeoutMs(), settings.clusterSecret());
            Transport transport = switch (uri.getScheme()) {
                case "rstore+tcp" -> tcp;
                case "rstore+shm" -> new ShmTransport();
                default -> new AutoTransport(tcp, settings.operationTimeoutMs(), settings.clusterSecret());
            };
            return RStore.attach(canonical, new RemoteMaster(master), transport, settings, transport.name() + " client", master::close);
        } catch (RuntimeException e) {
            master.close();
            throw e;
        }
    }
}

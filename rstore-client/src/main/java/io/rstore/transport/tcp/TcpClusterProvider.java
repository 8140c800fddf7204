package io.rstore.transport.tcp;

import io.rstore.ErrorCode;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.protocol.wire.RemoteMaster;
import io.rstore.spi.ClusterProvider;

import java.net.URI;
import java.util.Set;

/** Serves {@code rstore+tcp://HOST:PORT} (and plain {@code rstore://}, which picks tcp until shm and rdma exist). */
public final class TcpClusterProvider implements ClusterProvider {
    public static final int DEFAULT_PORT = 7400;

    @Override
    public Set<String> schemes() {
        return Set.of("rstore", "rstore+tcp");
    }

    @Override
    public RStore connect(URI uri, RStoreSettings settings) {
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + uri + "' names no host; use rstore+tcp://HOST:PORT");
        }
        int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
        int timeout = (int) Math.min(settings.operationTimeoutMs(), Integer.MAX_VALUE);
        TcpCallConnection master = TcpCallConnection.toMaster(host, port, timeout, settings.clusterSecret());
        try {
            String canonical = "rstore+tcp://" + host + ":" + port;
            return RStore.attach(canonical, new RemoteMaster(master), new TcpTransport(host, settings.operationTimeoutMs(), settings.clusterSecret()), settings,
                    "tcp client", master::close);
        } catch (RuntimeException e) {
            master.close();
            throw e;
        }
    }
}

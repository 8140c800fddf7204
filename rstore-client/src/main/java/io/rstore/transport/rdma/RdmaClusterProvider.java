package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.protocol.wire.FrameTransport;
import io.rstore.protocol.wire.RemoteMaster;
import io.rstore.spi.ClusterProvider;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Set;

/**
 * Serves {@code rstore+rdma://HOST:PORT}: the master's RDMA listener, reached on a real
 * device, or with {@code ?device=emulated} on the emulated one. Control calls go over
 * SEND/RECV, reads and writes one-sided to every memory server's RDMA listener.
 */
public final class RdmaClusterProvider implements ClusterProvider {
    public static final int DEFAULT_PORT = 7401;

    @Override
    public Set<String> schemes() {
        return Set.of("rstore+rdma");
    }

    @Override
    public RStore connect(URI uri, RStoreSettings settings) {
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + uri + "' names no host; use rstore+rdma://HOST:PORT[?device=emulated]");
        }
        int port = uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort();
        String query = uri.getQuery() == null ? "" : uri.getQuery();
        String device = query.isEmpty() ? "disni" : query.startsWith("device=") ? query.substring("device=".length()) : "";
        if (!device.equals("disni") && !device.equals("emulated")) {
            throw ErrorCode.INVALID_ARGUMENT.exception("'" + uri + "': the only query is device=disni or device=emulated");
        }
        RdmaTransport transport = new RdmaTransport(settings.operationTimeoutMs(), settings.clusterSecret());
        String master = "the master's RDMA listener at " + host + ":" + port;
        FrameTransport control;
        try {
            control = RdmaControl.connection(transport.connectControl(device, new InetSocketAddress(host, port)), master,
                    settings.operationTimeoutMs(), settings.clusterSecret());
        } catch (RuntimeException e) {
            transport.close();
            if (e instanceof RStoreException rse && rse.code() == ErrorCode.SERVER_UNAVAILABLE) {
                throw ErrorCode.MASTER_UNAVAILABLE.exception("cannot reach " + master + ": " + rse.detail());
            }
            throw e;
        }
        String canonical = "rstore+rdma://" + host + ":" + port + (device.equals("disni") ? "" : "?device=" + device);
        return RStore.attach(canonical, new RemoteMaster(control), transport, settings, "rdma client", control::close);
    }
}

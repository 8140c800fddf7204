package io.rstore.transport;

import io.rstore.protocol.ServerInfo;
import io.rstore.transport.shm.ShmTransport;

/** {@code rstore.transport = auto}: shm for a memory server on this host, the network transport for the others. */
public final class AutoTransport implements Transport {
    private final ShmTransport shm = new ShmTransport();
    private final Transport network;

    public AutoTransport(Transport network) {
        this.network = network;
    }

    @Override
    public String name() {
        return "auto";
    }

    @Override
    public String routeTo(ServerInfo server) {
        return ShmTransport.unreachable(server) == null ? shm.name() : network.name();
    }

    @Override
    public Endpoint connect(ServerInfo server) {
        return ShmTransport.unreachable(server) == null ? shm.connect(server) : network.connect(server);
    }

    @Override
    public void close() {
        shm.close();
        network.close();
    }
}

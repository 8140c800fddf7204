package io.rstore.transport;

import io.rstore.memory.LocalMemory;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.rdma.RdmaTransport;
import io.rstore.transport.shm.ShmTransport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code rstore.transport = auto}: per memory server, shm when it is on this host, rdma
 * when it has a real RDMA device (disni) that this host can use too, else the network
 * transport. Falling back from rdma is said loudly, once per server: it is the point of
 * the design, and a missing library or device is easy to miss otherwise.
 */
public final class AutoTransport implements Transport {
    private final ShmTransport shm = new ShmTransport();
    private final RdmaTransport rdma;
    private final Transport network;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    public AutoTransport(Transport network, long timeoutMs, String secret) {
        this.network = network;
        this.rdma = new RdmaTransport(timeoutMs, secret);
    }

    @Override
    public String name() {
        return "auto";
    }

    @Override
    public String routeTo(ServerInfo server) {
        return pick(server).name();
    }

    private Transport pick(ServerInfo server) {
        if (ShmTransport.unreachable(server) == null) {
            return shm;
        }
        if (server.rdma().startsWith("disni:")) { // the emulated device is for tests: auto never picks it
            String why = RdmaTransport.unreachable(server);
            if (why == null) {
                return rdma;
            }
            if (warned.add(server.rdma())) {
                System.err.println("rstore: WARNING: memory server " + server.id() + " offers RDMA (" + server.rdma() + ") but this client"
                        + " falls back to " + network.name() + ": " + why);
            }
        }
        return network;
    }

    @Override
    public Endpoint connect(ServerInfo server, Locator locator) {
        return pick(server).connect(server, locator);
    }

    /** The rdma part's: the others need no registration, and it registers lazily, on a device it actually opens. */
    @Override
    public LocalMemory.Registrar localRegistrar() {
        return rdma.localRegistrar();
    }

    @Override
    public void close() {
        shm.close();
        rdma.close();
        network.close();
    }
}

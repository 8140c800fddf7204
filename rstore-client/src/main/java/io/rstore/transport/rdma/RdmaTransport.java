package io.rstore.transport.rdma;

import io.rstore.memory.LocalMemory;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.Endpoint;
import io.rstore.transport.Transport;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.function.Supplier;

/**
 * One-sided operations over RDMA: a reliable connection per memory server, opened to the
 * listener the server advertises ({@code disni://HOST:PORT} on a real device,
 * {@code emulated://HOST:PORT} on the software one), with a device of the same kind here.
 */
public final class RdmaTransport implements Transport {
    private final long timeoutMs;
    private final String secret;
    private final LocalRegions localRegions = new LocalRegions();
    private EmulatedDevice emulated;
    private RdmaDevice disni;

    /** Connections bounded by {@code timeoutMs}; the emulated device's prove {@code secret} (empty: none). */
    public RdmaTransport(long timeoutMs, String secret) {
        this.timeoutMs = timeoutMs;
        this.secret = secret == null ? "" : secret;
    }

    @Override
    public String name() {
        return "rdma";
    }

    /** Why {@code server} cannot be reached over RDMA from here, or null if it can. */
    public static String unreachable(ServerInfo server) {
        if (server.rdma().isEmpty()) {
            return "it has no RDMA listener";
        }
        if (server.rdma().startsWith("disni:")) {
            return DisniDevice.unavailable();
        }
        return null;
    }

    @Override
    public Endpoint connect(ServerInfo server, Locator locator) {
        Transport.checkReachable(server, name(), unreachable(server));
        URI at = URI.create(server.rdma());
        Supplier<InetSocketAddress> whereNow = () -> { // a lost server, started again elsewhere (RdmaEndpoint)
            String rdma = locator.locate(server.id()).rdma();
            try {
                URI now = new URI(rdma);
                return at.getScheme().equals(now.getScheme()) ? new InetSocketAddress(now.getHost(), now.getPort()) : null;
            } catch (URISyntaxException | IllegalArgumentException e) { // none (no device), or not an address: not on this device
                return null;
            }
        };
        return new RdmaEndpoint(device(at.getScheme()), new InetSocketAddress(at.getHost(), at.getPort()), whereNow, localRegions,
                "memory server " + server.id() + " over " + at.getScheme(), timeoutMs);
    }

    /** Local memory is registered on each device this transport opens, from its first connection on. */
    @Override
    public LocalMemory.Registrar localRegistrar() {
        return localRegions;
    }

    /** A queue pair to a control listener (the master's) on a device of {@code kind}; its one-sided completions are ignored. */
    QueuePair connectControl(String kind, InetSocketAddress at) {
        return device(kind).connect(at, timeoutMs, (wrId, status) -> { });
    }

    private synchronized RdmaDevice device(String kind) {
        if (kind.equals("emulated")) {
            if (emulated == null) {
                emulated = new EmulatedDevice(secret);
            }
            return emulated;
        }
        if (disni == null) {
            disni = DisniDevice.open(RdmaDevice.Connections.DEFAULT);
        }
        return disni;
    }

    @Override
    public synchronized void close() {
        localRegions.clear();
        if (emulated != null) {
            emulated.close();
        }
        if (disni != null) {
            disni.close();
        }
    }
}

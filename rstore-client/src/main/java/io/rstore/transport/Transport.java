package io.rstore.transport;

import io.rstore.ErrorCode;
import io.rstore.memory.LocalMemory;
import io.rstore.protocol.ServerInfo;

/**
 * The transport SPI: how a client reaches memory servers for one-sided operations.
 * Implementations: {@code inproc} (one JVM); shm, tcp and rdma follow the same contract —
 * keys and bounds checked on every access, many operations in flight, completions in
 * order per endpoint.
 */
public interface Transport extends AutoCloseable {

    /** The name used in settings and URIs: inproc, shm, tcp or rdma. */
    String name();

    /** Which transport reaches {@code server}: this one's name, or for auto, the one it picks for that server. */
    default String routeTo(ServerInfo server) {
        return name();
    }

    /**
     * Opens the connection to a server; the client caches it. Control path: may throw. An
     * endpoint whose server stops answering asks {@code locator} where it is now, so that a
     * server started again elsewhere (a durable one on another port) is found by the
     * mappings already made on it.
     */
    Endpoint connect(ServerInfo server, Locator locator);

    /** Where the master says memory server {@code serverId} is now; throws an {@link io.rstore.RStoreException} when it cannot say. */
    @FunctionalInterface
    interface Locator {
        ServerInfo locate(int serverId);
    }

    /**
     * Registers the local memory that reads land in and writes come from (RDMA's memory
     * registration: a device may only touch memory registered with it). The client calls it
     * once per local arena, and for memory a caller hands to a mapping; the key it returns
     * is passed with every post. Transports that copy with the CPU need none.
     */
    default LocalMemory.Registrar localRegistrar() {
        return LocalMemory.Registrar.NONE;
    }

    @Override
    void close();

    /**
     * For {@link #connect}: SERVER_UNAVAILABLE if {@code server} is marked dead, UNSUPPORTED
     * with {@code why} if this transport cannot reach it (null: it can).
     */
    static void checkReachable(ServerInfo server, String transport, String why) {
        if (!server.alive()) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("memory server " + server.id() + " (" + server.address() + ") is marked dead");
        }
        if (why != null) {
            throw ErrorCode.UNSUPPORTED.exception("memory server " + server.id() + " cannot be reached over " + transport + ": " + why
                    + "; connect with rstore:// (auto) or rstore+tcp://");
        }
    }
}

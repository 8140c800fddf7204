package io.rstore.net;

import io.rstore.ErrorCode;
import io.rstore.protocol.wire.ChunkCalls;
import io.rstore.protocol.wire.RemoteMaster;
import io.rstore.server.MemoryServer;
import io.rstore.server.ShmChunkFiles;
import io.rstore.transport.rdma.RdmaDevice;
import io.rstore.transport.tcp.TcpCallConnection;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The memory server daemon: a {@link MemoryServer} served over TCP. It listens first, then
 * registers with the master, which connects back to manage its chunks (proving the control
 * token the server made up for it) while clients connect to read and write them. Once
 * registered it needs the master for nothing on the data path: if the master dies,
 * mapped segments here stay readable and writable.
 */
public final class ServerNode implements AutoCloseable {
    private final MemoryServer memory;
    private final TcpServer tcp;
    private final String address;
    private volatile int id = -1;

    private ServerNode(String masterHost, int masterPort, InetSocketAddress bind, String advertiseHost, long capacityBytes, Path shmDirectory,
                       RdmaDevice rdma, int rdmaPort, String secret, int timeoutMs) throws IOException {
        this.memory = new MemoryServer(capacityBytes, shmDirectory == null ? null : new ShmChunkFiles(shmDirectory));
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        String token = HexFormat.of().formatHex(random);
        try {
            this.tcp = new TcpServer(bind, () -> ChunkCalls.handler(memory, token), server -> server == id ? memory.regions() : null, secret);
        } catch (IOException | RuntimeException e) {
            memory.close(); // its shm directory, if any, goes too
            throw e;
        }
        String host = advertiseHost == null || advertiseHost.isEmpty() ? reachableHost(bind) : advertiseHost;
        this.address = new TcpAddress(host, tcp.port()).toString();
        try (RemoteMaster master = new RemoteMaster(TcpCallConnection.toMaster(masterHost, masterPort, timeoutMs, secret))) {
            if (rdma != null) {
                memory.enableRdma(rdma, new InetSocketAddress(bind.getAddress(), rdmaPort), host);
            }
            this.id = master.registerServer(address, memory.shmLocation(), memory.rdmaAddress(), capacityBytes, token);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Listens on {@code bind} (port 0: any free port) and registers with the master as
     * reachable at {@code advertiseHost} (empty: {@link #reachableHost}). With
     * {@code shmDirectory} (else null) its chunks are files there, which clients on this
     * host map directly; with {@code rdma} (else null) they are registered on that device,
     * whose listener takes {@code rdmaPort} (0: any free port).
     */
    public static ServerNode start(String masterHost, int masterPort, InetSocketAddress bind, String advertiseHost, long capacityBytes,
                                   Path shmDirectory, RdmaDevice rdma, int rdmaPort, String secret, long timeoutMs) {
        try {
            return new ServerNode(masterHost, masterPort, bind, advertiseHost, capacityBytes, shmDirectory, rdma, rdmaPort, secret,
                    (int) Math.min(timeoutMs, Integer.MAX_VALUE));
        } catch (IOException e) {
            throw ErrorCode.UNKNOWN.exception("the memory server cannot listen on " + bind + ": " + e.getMessage() + " (pick another port)");
        }
    }

    /** Where others reach a server bound to {@code bind}: the bind address, or this host's name when bound to all. */
    public static String reachableHost(InetSocketAddress bind) {
        if (!bind.getAddress().isAnyLocalAddress()) {
            return bind.getAddress().getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("this host has no resolvable name (" + e.getMessage()
                    + "); set rstore.server.advertise (--advertise) to the address others reach it at");
        }
    }

    /** The id the master gave this server. */
    public int id() {
        return id;
    }

    /** Where clients on this host find its chunk files ({@code BOOT-ID:DIRECTORY}), or empty. */
    public String shmLocation() {
        return memory.shmLocation();
    }

    /** Where clients reach its chunks over RDMA ({@code DEVICE://HOST:PORT}), or empty. */
    public String rdmaAddress() {
        return memory.rdmaAddress();
    }

    /** Where clients and the master reach it. */
    public String address() {
        return address;
    }

    public int port() {
        return tcp.port();
    }

    public MemoryServer memory() {
        return memory;
    }

    @Override
    public void close() {
        tcp.close();
        memory.close();
    }
}

package io.rstore.transport.rdma;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaPassiveEndpointGroup;
import com.ibm.disni.RdmaServerEndpoint;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaProvider;
import io.rstore.ErrorCode;

import java.io.File;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * A real RDMA device through DiSNI: reliable connections from a passive endpoint group
 * (completions polled by the caller, no completion thread), memory registered on the
 * device's protection domain, one-sided work requests through reusable stateful verb
 * calls ({@link DisniQueuePair}).
 *
 * <p>DiSNI's jar holds no native code: {@code libdisni} must be built against
 * libibverbs/librdmacm and be on {@code java.library.path}, and a first use of DiSNI
 * without it leaves its classes unusable for the JVM's life. So {@link #unavailable()}
 * decides up front, from /sys/class/infiniband and the library path, before any DiSNI
 * class is touched. Not verified on hardware in this project's CI (no card): docs/rdma.md.
 */
final class DisniDevice implements RdmaDevice {
    private static final Path DEVICES = Path.of("/sys/class/infiniband");
    static final int QUEUE_DEPTH = 256;
    /** How long DiSNI's connection-manager thread waits for an event before it looks whether to stop: closing waits this long at most. */
    private static final int CM_POLL_MS = 100;
    private static final int ACCESS = IbvMr.IBV_ACCESS_LOCAL_WRITE | IbvMr.IBV_ACCESS_REMOTE_WRITE | IbvMr.IBV_ACCESS_REMOTE_READ;

    private final RdmaPassiveEndpointGroup<RdmaEndpoint> group;
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>(); // listeners and endpoints
    // Endpoints close one at a time, never beside the group's close: DiSNI takes the group's lock inside an
    // endpoint's close and the endpoint's inside the group's, so two closes at once can deadlock.
    private final Object closing = new Object();
    private boolean closed;
    private volatile IbvPd pd; // the device's protection domain, known once a listener or connection exists

    private DisniDevice(Connections connections) throws IOException {
        group = new RdmaPassiveEndpointGroup<>(CM_POLL_MS, QUEUE_DEPTH, 1, 2 * QUEUE_DEPTH + 8);
        group.init(this::endpoint);
        // DiSNI defaults both retry counts to 0: a SEND that beats its RECV would fail. The initiator depth and
        // responder resources cannot be set through DiSNI 2.1 (Connections refuses them); libdisni asks for the maximum.
        RdmaConnParam connection = group.getConnParam();
        connection.setRetry_count((byte) connections.retryCount());
        connection.setRnr_retry_count((byte) connections.rnrRetryCount());
    }

    private RdmaEndpoint endpoint(RdmaCmId id, boolean serverSide) throws IOException {
        return new DisniQueuePair.Endpoint(group, id, serverSide);
    }

    /** RDMA devices of this host (names under /sys/class/infiniband). */
    static List<String> devices() {
        if (!Files.isDirectory(DEVICES)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(DEVICES)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** {@code libdisni.so} on java.library.path, or null. */
    static Path library() {
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, System.mapLibraryName("disni"));
            if (Files.isReadable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Why DiSNI cannot be used here, or null if it can (the library loads and a device exists). */
    static String unavailable() {
        if (devices().isEmpty()) {
            return "this host has no RDMA device (/sys/class/infiniband is empty or missing)";
        }
        if (library() == null) {
            return "libdisni is not on java.library.path (" + System.getProperty("java.library.path") + "); build it as docs/rdma.md says";
        }
        return version() < 0 ? "libdisni did not load (see rstore doctor)" : null;
    }

    private static int version = Integer.MIN_VALUE;

    /** libdisni's version, or -1 if it does not load. Touches DiSNI only when the library is on the path. */
    static synchronized int version() {
        if (version == Integer.MIN_VALUE) {
            if (library() == null) {
                return -1;
            }
            try {
                version = RdmaProvider.provider().getVersion();
            } catch (Throwable e) { // UnsatisfiedLinkError, IOException: either way, not usable
                version = -1;
            }
        }
        return version;
    }

    static RdmaDevice open(Connections connections) {
        String why = unavailable();
        if (why != null) {
            throw ErrorCode.UNSUPPORTED.exception("cannot use DiSNI: " + why);
        }
        try {
            return new DisniDevice(connections);
        } catch (IOException | RuntimeException e) {
            throw ErrorCode.UNSUPPORTED.exception("cannot open the RDMA device through DiSNI: " + e.getMessage());
        }
    }

    @Override
    public String kind() {
        return "disni";
    }

    @Override
    public MemoryRegion register(MemorySegment memory) {
        IbvPd domain = pd;
        if (domain == null) {
            throw ErrorCode.UNSUPPORTED.exception("register memory after listen or connect: DiSNI gives the protection domain with an endpoint");
        }
        RdmaDevice.checkRegisterable(memory);
        try {
            // read-only memory (a file mapped read-only) can only be a source: a NIC refuses write access to it
            IbvMr mr = domain.regMr(memory.address(), (int) memory.byteSize(), memory.isReadOnly() ? 0 : ACCESS).execute().free().getMr();
            return new MemoryRegion(mr.getAddr(), mr.getLength(), mr.getLkey(), mr.getRkey(), mr);
        } catch (IOException e) {
            throw ErrorCode.OUT_OF_MEMORY.exception("the RDMA device would not register " + memory.byteSize() + " bytes: " + e.getMessage()
                    + " (is the locked-memory limit high enough? ulimit -l; docs/rdma.md)");
        }
    }

    @Override
    public void deregister(MemoryRegion region) {
        try {
            ((IbvMr) region.handle()).deregMr().execute().free();
        } catch (IOException e) {
            // the region dies with the device anyway
        }
    }

    @Override
    public Listener listen(InetSocketAddress at, Supplier<RequestHandler> handlers, ListenerLimits limits) {
        try {
            RdmaServerEndpoint<RdmaEndpoint> server = group.createServerEndpoint();
            QueuePairAdmission admission = new QueuePairAdmission(limits);
            server.bind(at, 128);
            pd = server.getPd();
            int port = ((InetSocketAddress) server.getSrcAddr()).getPort(); // the one rdma_cm chose when asked for 0
            Thread.ofPlatform().name("rdma-accept").daemon().start(() -> {
                while (!server.isClosed()) {
                    try {
                        DisniQueuePair.Endpoint accepted = (DisniQueuePair.Endpoint) server.accept();
                        open.add(accepted);
                        QueuePairAdmission.Seat seat = admission.arrive(source(accepted), () -> close(accepted));
                        Thread.ofPlatform().name("rdma-responder").daemon().start(() -> {
                            try {
                                DisniQueuePair.respond(accepted, handlers.get(), seat, limits.handshakeMs());
                            } finally {
                                close(accepted);
                                seat.leave();
                            }
                        });
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            });
            open.add(server::close);
            return new Listener() {
                @Override
                public int port() {
                    return port;
                }

                @Override
                public void close() {
                    try {
                        server.close();
                    } catch (IOException | InterruptedException e) {
                        // closing anyway
                    }
                }
            };
        } catch (Exception e) {
            throw ErrorCode.CANNOT_LISTEN.exception("the RDMA device cannot listen on " + at + ": " + e.getMessage()
                    + " (soft RDMA devices need the device's address, not 127.0.0.1)");
        }
    }

    /** The address a queue pair connected from, or null when the connection manager cannot tell. */
    private static InetAddress source(DisniQueuePair.Endpoint accepted) {
        try {
            return accepted.getDstAddr() instanceof InetSocketAddress peer ? peer.getAddress() : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public QueuePair connect(InetSocketAddress peer, long timeoutMs, QueuePair.CompletionSink sink) {
        DisniQueuePair.Endpoint endpoint;
        try {
            endpoint = (DisniQueuePair.Endpoint) group.createEndpoint();
        } catch (IOException e) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot create an RDMA endpoint: " + e.getMessage());
        }
        // connect() can block forever on some connection-manager errors: a watchdog bounds it
        Thread watchdog = Thread.ofPlatform().daemon().unstarted(() -> {
            try {
                endpoint.connect(peer, (int) Math.min(timeoutMs, Integer.MAX_VALUE));
            } catch (Exception e) {
                endpoint.failure = e;
            }
        });
        watchdog.start();
        try {
            watchdog.join(timeoutMs + 1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (watchdog.isAlive() || endpoint.failure != null || !endpoint.isConnected()) {
            close(endpoint);
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot connect to the RDMA listener at " + peer + " within " + timeoutMs + " ms"
                    + (endpoint.failure != null ? ": " + endpoint.failure.getMessage() : ""));
        }
        if (pd == null) {
            pd = endpoint.getPd();
        }
        open.add(endpoint);
        return new DisniQueuePair(endpoint, sink, "the RDMA listener at " + peer, this::close);
    }

    @Override
    public void close() {
        synchronized (closing) {
            if (closed) {
                return;
            }
            closed = true;
            for (AutoCloseable c : open) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // closing anyway
                }
            }
            open.clear();
            try {
                group.close(); // its threads are not daemons: a group left open keeps the JVM alive
            } catch (IOException | InterruptedException ignored) {
                // closing anyway
            }
        }
    }

    /** Closes one endpoint (a queue pair that ended, or was closed), unless the device is closing them all. */
    private void close(DisniQueuePair.Endpoint endpoint) {
        synchronized (closing) {
            open.remove(endpoint);
            if (!closed) {
                endpoint.closeQuietly();
            }
        }
    }
}

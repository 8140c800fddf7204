package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.protocol.wire.Handshake;
import io.rstore.transport.SegmentWindow;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A software RDMA device: memory regions with an lkey and a random rkey, and queue pairs
 * whose one-sided READ and WRITE travel over TCP to the peer's device, which carries them
 * out against its registered memory on a thread of its own, the program on that side
 * taking no part, as a NIC would. It is at least as strict as a NIC: every work request's
 * local memory must lie in a region registered here under the lkey it names (else
 * LOCAL_PROTECTION_ERROR), every remote access in the region its rkey names (else
 * REMOTE_ACCESS_ERROR, and the responder drops the connection); the first failure moves
 * the queue pair to the error state, flushing everything after it, as does a peer that goes
 * away; work requests complete in order; listeners asked for port 0 report the port they
 * got. It verifies the rdma transport without a card; it is not fast and is never chosen
 * by {@code auto}.
 *
 * <p>Unlike a NIC's fabric, its wire is a TCP port anyone who can connect reaches, so a
 * connection first passes the tcp handshake of docs/protocol.md with the cluster secret the
 * device was made with (within {@link #WIRE_HANDSHAKE_MS}), and is given its message buffers
 * only at its first SEND: before that a connection costs a thread and a few hundred bytes,
 * and a listener admits queue pairs within its {@link ListenerLimits}. Those buffers are a listener's
 * small ones ({@link RdmaDevice#SMALL_MESSAGE}) until the handler asks for more, and a
 * SEND larger than they hold breaks the connection, as on a NIC.
 *
 * <p>Wire (little-endian): a work request is {@code length i32, op i8 (1 read, 2 write,
 * 3 send), wrId i64, remoteAddress i64, rkey i32, bytes i32} and a write's or send's
 * bytes; its completion is {@code length i32, op i8, wrId i64, status i32} and a read's
 * or send's answer bytes.
 */
public final class EmulatedDevice implements RdmaDevice {
    static final int READ = 1;
    static final int WRITE = 2;
    static final int SEND = 3;
    static final int REQUEST_HEADER = 29;
    static final int RESPONSE_HEADER = 17;

    /** The bound on the tcp handshake of this device's own wire (its secret), before any work request. */
    static final long WIRE_HANDSHAKE_MS = 10_000;

    /** Closes queue pairs whose handler did not authenticate them in time: one daemon thread for every device. */
    private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("emulated-rdma-watchdog").daemon().factory());

    private final String secret; // empty: none
    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<Integer, MemorySegment> regions = new ConcurrentHashMap<>(); // by rkey
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();
    // local keys: lkey = slot << 8 | generation, so a slot used again never honours an old lkey
    private volatile MemorySegment[] localMemory = new MemorySegment[16];
    private volatile int[] localKeys = new int[16];
    private int generation;

    /** A device whose listeners let in any peer, and whose connections expect no secret. */
    public EmulatedDevice() {
        this("");
    }

    /** A device whose listeners let in only peers proving {@code secret}, which its own connections prove. */
    public EmulatedDevice(String secret) {
        this.secret = secret == null ? "" : secret;
    }

    String secret() {
        return secret;
    }

    @Override
    public String kind() {
        return "emulated";
    }

    @Override
    public synchronized MemoryRegion register(MemorySegment memory) {
        RdmaDevice.checkRegisterable(memory); // as strict as DiSNI: no region past an int's length
        int rkey;
        do {
            rkey = random.nextInt();
        } while (rkey == 0 || regions.putIfAbsent(rkey, memory) != null);
        int slot = 0;
        while (slot < localKeys.length && localKeys[slot] != 0) {
            slot++;
        }
        int capacity = slot < localKeys.length ? localKeys.length : 2 * localKeys.length;
        MemorySegment[] memories = Arrays.copyOf(localMemory, capacity);
        int[] keys = Arrays.copyOf(localKeys, capacity);
        generation = generation % 255 + 1; // 1..255: no lkey is 0, the mark of a free slot
        memories[slot] = memory;
        keys[slot] = slot << 8 | generation;
        localMemory = memories;
        localKeys = keys;
        return new MemoryRegion(memory.address(), memory.byteSize(), keys[slot], rkey, null);
    }

    @Override
    public synchronized void deregister(MemoryRegion region) {
        regions.remove(region.rkey());
        int slot = region.lkey() >>> 8;
        if (slot < localKeys.length && localKeys[slot] == region.lkey()) {
            int[] keys = localKeys.clone();
            MemorySegment[] memories = localMemory.clone();
            keys[slot] = 0;
            memories[slot] = null;
            localKeys = keys;
            localMemory = memories;
        }
    }

    /**
     * The registered memory {@code lkey} names, if {@code [address, address+length)} lies in
     * it and it may be written when the work request writes into it (a READ); else null (a NIC's lkey check).
     */
    MemorySegment local(int lkey, long address, int length, boolean writes) {
        int slot = lkey >>> 8;
        int[] keys = localKeys;
        MemorySegment[] memories = localMemory;
        if (lkey == 0 || slot >= keys.length || slot >= memories.length || keys[slot] != lkey) {
            return null;
        }
        MemorySegment memory = memories[slot];
        return memory != null && !(writes && memory.isReadOnly()) && length >= 0 && address >= memory.address() && length <= memory.address() + memory.byteSize() - address ? memory : null;
    }

    @Override
    public Listener listen(InetSocketAddress at, Supplier<RequestHandler> handlers, ListenerLimits limits) {
        try {
            ServerSocketChannel server = ServerSocketChannel.open().bind(at);
            QueuePairAdmission admission = new QueuePairAdmission(limits);
            Thread.ofPlatform().name("emulated-rdma-accept").daemon().start(() -> {
                while (server.isOpen()) {
                    SocketChannel peer;
                    try {
                        peer = server.accept();
                    } catch (IOException e) {
                        if (!server.isOpen()) {
                            return; // closed
                        }
                        LockSupport.parkNanos(100_000_000L); // e.g. out of descriptors: the connection waits in the backlog
                        continue;
                    }
                    open.add(peer);
                    QueuePairAdmission.Seat seat = admission.arrive(source(peer), () -> closeQuietly(peer));
                    Thread.ofPlatform().name("emulated-rdma-nic").stackSize(256 << 10).daemon().start(() -> {
                        try {
                            if (admitted(peer)) {
                                RequestHandler handler = handlers.get();
                                // the listener's bound on the handler's handshake, from the connection on (as DiSNI's responder keeps it)
                                WATCHDOG.schedule(() -> {
                                    if (!handler.authenticated()) {
                                        closeQuietly(peer);
                                    }
                                }, limits.handshakeMs(), TimeUnit.MILLISECONDS);
                                serve(peer, handler, seat);
                            }
                        } finally {
                            open.remove(peer);
                            closeQuietly(peer);
                            seat.leave();
                        }
                    });
                }
            });
            open.add(server);
            return new Listener() {
                @Override
                public int port() {
                    return server.socket().getLocalPort();
                }

                @Override
                public void close() {
                    closeQuietly(server);
                }
            };
        } catch (IOException e) {
            throw ErrorCode.CANNOT_LISTEN.exception("the emulated RDMA device cannot listen on " + at + ": " + e.getMessage());
        }
    }

    /** The address a connection came from, or null once it is gone. */
    private static InetAddress source(SocketChannel peer) {
        try {
            return peer.getRemoteAddress() instanceof InetSocketAddress at ? at.getAddress() : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The tcp handshake with this device's secret, bounded; false (and the connection to be closed) unless it passed. */
    private boolean admitted(SocketChannel peer) {
        try {
            peer.socket().setTcpNoDelay(true);
            peer.socket().setSoTimeout((int) WIRE_HANDSHAKE_MS);
            return Handshake.serverSide(peer.socket().getInputStream(), peer.socket().getOutputStream(), secret);
        } catch (IOException | RuntimeException e) {
            return false; // silent, slow or not our protocol
        }
    }

    /** The responder: carries out each work request against registered memory, in order. */
    private void serve(SocketChannel peer, RequestHandler requests, QueuePairAdmission.Seat seat) {
        ByteBuffer header = ByteBuffer.allocateDirect(REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer reply = ByteBuffer.allocateDirect(RESPONSE_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer message = null; // the receive and send buffers, made at the first SEND: small, as a
        ByteBuffer answer = null;  // listener's (RdmaDevice.SMALL_MESSAGE), until the handler asks for more
        int capacity = RdmaDevice.SMALL_MESSAGE;
        ByteBuffer[] replyAndBytes = new ByteBuffer[2];
        SegmentWindow window = new SegmentWindow();
        try (peer; requests) {
            if (!seat.admit(requests)) {
                return; // closed for a newer one already, or no place for one more
            }
            while (true) {
                header.clear();
                if (!readFully(peer, header)) {
                    return;
                }
                int op = header.get(4);
                long wrId = header.getLong(5);
                long address = header.getLong(13);
                int rkey = header.getInt(21);
                int bytes = header.getInt(25);
                if (header.getInt(0) != REQUEST_HEADER - 4 + (op == READ ? 0 : bytes) || bytes < 0 || op < READ || op > SEND
                        || (op == SEND && bytes > capacity)) {
                    return; // not our protocol, or a SEND past the posted receive: drop the connection, as a NIC breaks the QP
                }
                if (op == SEND) {
                    if (message == null || message.capacity() < capacity) {
                        message = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
                        answer = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
                    }
                    message.clear().limit(bytes);
                    if (!readFully(peer, message)) {
                        return;
                    }
                    answer.clear();
                    requests.handle(message.flip(), answer);
                    if (!seat.admit(requests)) {
                        return; // authenticated, but the listener serves as many as it may
                    }
                    answer.flip();
                    capacity = Math.max(capacity, Math.min(requests.messageBytes(), RdmaDevice.MAX_MESSAGE)); // before the next SEND
                    respond(peer, reply, replyAndBytes, op, wrId, 0, answer);
                    continue;
                }
                MemorySegment memory = regions.get(rkey);
                boolean allowed = memory != null && address >= memory.address() && bytes <= memory.address() + memory.byteSize() - address;
                ByteBuffer target = allowed ? window.window(memory, address - memory.address(), bytes) : null;
                if (op == WRITE) {
                    if (target != null) {
                        if (!readFully(peer, target)) {
                            return;
                        }
                    } else if (!discard(peer, bytes)) {
                        return;
                    }
                    respond(peer, reply, replyAndBytes, op, wrId, allowed ? QueuePair.SUCCESS : QueuePair.REMOTE_ACCESS_ERROR, null);
                } else {
                    respond(peer, reply, replyAndBytes, op, wrId, allowed ? QueuePair.SUCCESS : QueuePair.REMOTE_ACCESS_ERROR, target);
                }
                if (!allowed) {
                    return; // a NIC's responder moves its queue pair to the error state: nothing more is carried out
                }
            }
        } catch (IOException | RuntimeException e) {
            // the queue pair broke (peer gone, memory deregistered under an access): the peer sees the connection end
        }
    }

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);

    /** A completion: {@code out} is the caller's two-slot array, reused so nothing is allocated per work request. */
    private static void respond(SocketChannel peer, ByteBuffer reply, ByteBuffer[] out, int op, long wrId, int status, ByteBuffer payload)
            throws IOException {
        int bytes = payload == null ? 0 : payload.remaining();
        reply.clear();
        reply.putInt(RESPONSE_HEADER - 4 + bytes).put((byte) op).putLong(wrId).putInt(status).flip();
        out[0] = reply;
        out[1] = payload == null ? NOTHING : payload;
        writeFully(peer, out);
        out[1] = null;
    }

    static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean discard(SocketChannel channel, int bytes) throws IOException {
        ByteBuffer scratch = ByteBuffer.allocate(Math.min(bytes, 1 << 16));
        for (int left = bytes; left > 0; left -= scratch.position()) {
            scratch.clear().limit(Math.min(left, scratch.capacity()));
            if (!readFully(channel, scratch)) {
                return false;
            }
        }
        return true;
    }

    static void writeFully(SocketChannel channel, ByteBuffer[] buffers) throws IOException {
        while (buffers[buffers.length - 1].hasRemaining() || buffers[0].hasRemaining()) {
            if (channel.write(buffers) == 0) {
                LockSupport.parkNanos(1_000);
            }
        }
    }

    @Override
    public QueuePair connect(InetSocketAddress peer, long timeoutMs, QueuePair.CompletionSink sink) {
        EmulatedQueuePair qp = new EmulatedQueuePair(this, peer, timeoutMs, sink);
        open.add(qp);
        return qp;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        open.forEach(EmulatedDevice::closeQuietly);
        open.clear();
        regions.clear();
        localKeys = new int[16];
        localMemory = new MemorySegment[16];
    }
}

package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.transport.SegmentWindow;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * A software RDMA device: memory regions with random rkeys, and queue pairs whose
 * one-sided READ and WRITE travel over TCP to the peer's device, which carries them out
 * against its registered memory on a thread of its own, the program on that side taking
 * no part, as a NIC would. It checks the rkey and the range of every access
 * (UNAUTHORIZED, OUT_OF_BOUNDS) and completes work requests in order. It verifies the
 * rdma transport without a card; it is not fast and is never chosen by {@code auto}.
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

    private final SecureRandom random = new SecureRandom();
    private final ConcurrentHashMap<Integer, MemorySegment> regions = new ConcurrentHashMap<>();
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    @Override
    public String kind() {
        return "emulated";
    }

    @Override
    public MemoryRegion register(MemorySegment memory) {
        int rkey;
        do {
            rkey = random.nextInt();
        } while (rkey == 0 || regions.putIfAbsent(rkey, memory) != null);
        return new MemoryRegion(memory.address(), memory.byteSize(), rkey, null);
    }

    @Override
    public void deregister(MemoryRegion region) {
        regions.remove(region.rkey());
    }

    @Override
    public Listener listen(InetSocketAddress at, java.util.function.Supplier<RequestHandler> handlers) {
        try {
            ServerSocketChannel server = ServerSocketChannel.open().bind(at);
            Thread.ofPlatform().name("emulated-rdma-accept").daemon().start(() -> {
                while (server.isOpen()) {
                    try {
                        SocketChannel peer = server.accept();
                        peer.socket().setTcpNoDelay(true);
                        open.add(peer);
                        Thread.ofPlatform().name("emulated-rdma-nic").daemon().start(() -> serve(peer, handlers.get()));
                    } catch (IOException e) {
                        return; // closed
                    }
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
            throw ErrorCode.UNKNOWN.exception("the emulated RDMA device cannot listen on " + at + ": " + e.getMessage());
        }
    }

    /** The responder: carries out each work request against registered memory, in order. */
    private void serve(SocketChannel peer, RequestHandler requests) {
        ByteBuffer header = ByteBuffer.allocateDirect(REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer reply = ByteBuffer.allocateDirect(RESPONSE_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer message = ByteBuffer.allocateDirect(RdmaDevice.MAX_MESSAGE).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer answer = ByteBuffer.allocateDirect(RdmaDevice.MAX_MESSAGE).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer[] replyAndBytes = new ByteBuffer[2];
        SegmentWindow window = new SegmentWindow();
        try (peer; requests) {
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
                        || (op == SEND && bytes > RdmaDevice.MAX_MESSAGE)) {
                    return; // not our protocol: drop the connection, as a NIC drops a broken QP
                }
                if (op == SEND) {
                    message.clear().limit(bytes);
                    if (!readFully(peer, message)) {
                        return;
                    }
                    answer.clear();
                    requests.handle(message.flip(), answer);
                    answer.flip();
                    respond(peer, reply, replyAndBytes, op, wrId, 0, answer);
                    continue;
                }
                MemorySegment memory = regions.get(rkey);
                int status = memory == null ? ErrorCode.UNAUTHORIZED.code()
                        : address < memory.address() || bytes > memory.address() + memory.byteSize() - address ? ErrorCode.OUT_OF_BOUNDS.code() : 0;
                ByteBuffer target = status == 0 ? window.window(memory, address - memory.address(), bytes) : null;
                if (op == WRITE) {
                    if (target != null) {
                        if (!readFully(peer, target)) {
                            return;
                        }
                    } else if (!discard(peer, bytes)) {
                        return;
                    }
                    respond(peer, reply, replyAndBytes, op, wrId, status, null);
                } else {
                    respond(peer, reply, replyAndBytes, op, wrId, status, target);
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
        EmulatedQueuePair qp = new EmulatedQueuePair(peer, timeoutMs, sink);
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
    }
}

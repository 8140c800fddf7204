package io.rstore.net;

import io.rstore.ErrorCode;
import io.rstore.protocol.wire.FrameHandler;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;
import io.rstore.transport.RegionTable;
import io.rstore.transport.SegmentWindow;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Serves RStore over TCP: request frames go to a {@link FrameHandler} of the connection's
 * own (the master's calls on a master, the master's chunk calls on a memory server),
 * one-sided reads and writes to the memory servers' region tables, each checked against
 * key and bounds. One thread per connection answers its frames in order. A malformed
 * frame is answered with INVALID_FRAME and the connection is closed; everyone else is
 * served on.
 */
public final class TcpServer implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final Supplier<FrameHandler> handlers;
    private final IntFunction<RegionTable> regions;
    private final List<SocketChannel> connections = new CopyOnWriteArrayList<>();
    private final String secret; // empty: none required
    private final Thread acceptor;
    private volatile boolean closed;

    /**
     * @param handlers a handler for each new connection, closed when the connection ends
     * @param regions  the region table of memory server {@code id}, or null if not served here
     */
    public TcpServer(InetSocketAddress bind, Supplier<FrameHandler> handlers, IntFunction<RegionTable> regions, String secret)
            throws IOException {
        this.secret = secret == null ? "" : secret;
        this.listener = ServerSocketChannel.open().bind(bind);
        this.handlers = handlers;
        this.regions = regions;
        this.acceptor = Thread.ofPlatform().name("rstore-accept").daemon().start(this::accept);
    }

    public int port() {
        try {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void accept() {
        int n = 0;
        while (!closed) {
            try {
                SocketChannel channel = listener.accept();
                channel.socket().setTcpNoDelay(true);
                keepAlive(channel);
                connections.add(channel);
                Thread.ofPlatform().name("rstore-conn-" + n++).daemon().start(() -> serve(channel));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("rstore: accept failed: " + e.getMessage());
                }
            }
        }
    }

    /**
     * The heartbeat for half-open connections (a client host that vanished without a FIN
     * or RST): the kernel probes an idle connection after 10 s, every 2 s, and gives up
     * after 3 unanswered probes, which ends the connection and so closes its sessions.
     */
    private static void keepAlive(SocketChannel channel) {
        try {
            channel.setOption(java.net.StandardSocketOptions.SO_KEEPALIVE, true);
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, 10);
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, 2);
            channel.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
        } catch (IOException | UnsupportedOperationException e) {
            // not on this platform: a dead peer is then noticed when a write to it fails
        }
    }

    private void serve(SocketChannel channel) {
        FrameHandler handler = handlers.get();
        ByteBuffer frame = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer reply = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        try (channel; Selector selector = Selector.open()) {
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            Poller poller = new Poller(channel, selector);
            if (!handshake(channel, poller)) {
                return;
            }
            while (!closed) {
                frame.clear().limit(4);
                if (!poller.readFully(frame)) {
                    return; // the peer closed
                }
                int length = frame.getInt(0);
                if (length < Frames.HEADER - 4 || length > Frames.MAX_FRAME) {
                    refuse(channel, "a frame of " + length + " bytes");
                    return;
                }
                // the header first: a data request's payload goes straight into chunk memory
                int fixed = Math.min(4 + length, Frames.HEADER + Frames.DATA_REQUEST_BODY);
                frame.limit(fixed).position(4);
                if (!poller.readFully(frame)) {
                    return;
                }
                int kind = frame.get(7);
                if (kind == Frames.DATA_REQUEST) {
                    if (!data(frame, length, poller, channel, reply)) {
                        refuse(channel, "a malformed data request");
                        return;
                    }
                    continue;
                }
                if (frame.capacity() < 4 + length) {
                    ByteBuffer bigger = ByteBuffer.allocateDirect(4 + length).order(ByteOrder.LITTLE_ENDIAN);
                    frame.flip();
                    bigger.put(frame);
                    frame = bigger;
                }
                frame.limit(4 + length);
                if (!poller.readFully(frame)) {
                    return;
                }
                frame.flip();
                ByteBuffer answer = handler.handle(frame);
                writeFully(channel, answer);
                if (Frames.isHangUp(answer)) {
                    return;
                }
            }
        } catch (IOException e) {
            // the peer went away: nothing to answer
        } catch (RuntimeException e) { // e.g. chunk memory closed under an operation while shutting down
            logRefusal("a connection ended by " + e);
        } finally {
            connections.remove(channel);
            handler.close(); // a client that died (even by SIGKILL) leaves no references behind
        }
    }

    /** Challenges the client; with a secret required, only a correct proof within the bound lets it on. */
    private boolean handshake(SocketChannel channel, Poller poller) throws IOException {
        byte[] nonce = Handshake.nonce();
        writeFully(channel, Handshake.challenge(!secret.isEmpty(), nonce));
        if (secret.isEmpty()) {
            return true;
        }
        ByteBuffer proof = ByteBuffer.allocate(Handshake.PROOF_FRAME);
        boolean arrived = poller.readFully(proof, System.nanoTime() + HANDSHAKE_NANOS);
        boolean accepted = arrived && Handshake.verify(proof.flip(), secret, nonce);
        writeFully(channel, Handshake.verdict(accepted));
        if (!accepted) {
            logRefusal("a connection without the cluster secret from " + channel.getRemoteAddress());
        }
        return accepted;
    }

    private static final long HANDSHAKE_NANOS = 10_000_000_000L;

    /**
     * Carries out one read or write with no copy on this side: a write's payload is read
     * from the socket straight into the chunk, a read's bytes are written from the chunk
     * behind the answer's header. Returns false when the frame is malformed.
     */
    private boolean data(ByteBuffer frame, int frameLength, Poller poller, SocketChannel channel, ByteBuffer reply) throws IOException {
        if (frame.position() < Frames.HEADER + Frames.DATA_REQUEST_BODY || frame.get(4) != 'S' || frame.get(5) != 'R' || frame.get(6) != 1) {
            return false;
        }
        int type = frame.getShort(8);
        long correlation = frame.getLong(10);
        int body = Frames.HEADER;
        int server = frame.getInt(body);
        int chunk = frame.getInt(body + 4);
        int key = frame.getInt(body + 8);
        long offset = frame.getLong(body + 12);
        long length = frame.getLong(body + 20);
        long payload = 4L + frameLength - (Frames.HEADER + Frames.DATA_REQUEST_BODY);
        if (length < 0 || (type == Frames.WRITE && payload != length) || (type == Frames.READ && payload != 0)
                || (type != Frames.READ && type != Frames.WRITE)) {
            return false;
        }
        RegionTable table = regions.apply(server);
        MemorySegment memory = table == null ? null : table.checked(chunk, key, offset, length);
        int status = table == null ? ErrorCode.SERVER_UNAVAILABLE.code() : (memory == null ? table.status(chunk, key, offset, length) : 0);
        if (type == Frames.WRITE) {
            if (memory != null) {
                if (!poller.readFully(poller.window.window(memory, offset, length))) {
                    throw new IOException("the peer closed mid-request");
                }
            } else if (!poller.discard(length)) { // refused: still take the bytes off the wire
                throw new IOException("the peer closed mid-request");
            }
        }
        boolean withPayload = type == Frames.READ && memory != null && length > 0;
        reply.clear();
        Frames.writeHeader(reply, Frames.HEADER - 4 + Frames.DATA_RESPONSE_BODY + (withPayload ? (int) length : 0),
                Frames.DATA_RESPONSE, type, correlation);
        reply.putInt(status).flip();
        ByteBuffer[] out = poller.out;
        out[0] = reply;
        out[1] = withPayload ? poller.window.window(memory, offset, length) : NOTHING;
        writeFully(channel, out);
        out[1] = null;
        return true;
    }

    private void refuse(SocketChannel channel, String what) throws IOException {
        writeFully(channel, Frames.invalidFrameError(what));
        logRefusal(what + " from " + channel.getRemoteAddress());
    }

    private long lastRefusalLog;
    private long refusalsNotLogged;

    /** At most one line a second, so a flood of garbage cannot flood the log. */
    private synchronized void logRefusal(String what) {
        long now = System.nanoTime();
        if (lastRefusalLog != 0 && now - lastRefusalLog < 1_000_000_000L) {
            refusalsNotLogged++;
            return;
        }
        String more = refusalsNotLogged > 0 ? " (and " + refusalsNotLogged + " more refused since the last line)" : "";
        System.err.println("rstore: refused " + what + "; connection closed" + more);
        lastRefusalLog = now;
        refusalsNotLogged = 0;
    }

    /**
     * Reads a connection by polling for {@link #SPIN_NANOS} after the last bytes arrived,
     * then waiting in a selector: a busy connection answers without a wake-up (30-35 us
     * on these machines), an idle one costs nothing.
     */
    private final class Poller {
        private final SocketChannel channel;
        private final Selector selector;
        // the connection's reusable views for the data path: no allocation per operation
        final SegmentWindow window = new SegmentWindow();
        final ByteBuffer[] out = new ByteBuffer[2];

        Poller(SocketChannel channel, Selector selector) {
            this.channel = channel;
            this.selector = selector;
        }

        /** Reads and drops {@code bytes} (the payload of a refused write). */
        boolean discard(long bytes) throws IOException {
            ByteBuffer scratch = ByteBuffer.allocate((int) Math.min(bytes, 1 << 16));
            for (long left = bytes; left > 0; left -= scratch.position()) {
                scratch.clear().limit((int) Math.min(left, scratch.capacity()));
                if (!readFully(scratch)) {
                    return false;
                }
            }
            return true;
        }

        boolean readFully(ByteBuffer buffer) throws IOException {
            return readFully(buffer, Long.MAX_VALUE);
        }

        /** Like {@link #readFully(ByteBuffer)}, giving up (false) at {@code deadline} (System.nanoTime()). */
        boolean readFully(ByteBuffer buffer, long deadline) throws IOException {
            long idleSince = System.nanoTime();
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer);
                if (n < 0) {
                    return false;
                }
                if (n > 0) {
                    idleSince = System.nanoTime();
                } else if (System.nanoTime() - idleSince < SPIN_NANOS) {
                    Thread.onSpinWait();
                } else {
                    selector.select(SELECT_MS);
                    selector.selectedKeys().clear();
                    if (closed || System.nanoTime() - deadline > 0) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    private static final ByteBuffer NOTHING = ByteBuffer.allocate(0);
    private static final long SPIN_NANOS = 50_000;
    private static final long SELECT_MS = 100;

    /** Writes all of {@code buffer} to a non-blocking channel (a full socket means the client is busy: wait briefly, within a bound). */
    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        writeFully(channel, new ByteBuffer[] {buffer});
    }

    /** A client that takes none of an answer's bytes for this long is dropped (its connection closed). */
    private static final long STALLED_NANOS = 30_000_000_000L;

    private static void writeFully(SocketChannel channel, ByteBuffer[] buffers) throws IOException {
        long progress = System.nanoTime();
        while (buffers[buffers.length - 1].hasRemaining() || buffers[0].hasRemaining()) {
            if (channel.write(buffers) > 0) {
                progress = System.nanoTime();
            } else if (System.nanoTime() - progress > STALLED_NANOS) {
                throw new IOException("the client took no bytes for " + STALLED_NANOS / 1_000_000_000 + " s");
            } else {
                LockSupport.parkNanos(1_000);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (SocketChannel c : connections) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}

package io.rstore.net;

import io.rstore.ErrorCode;
import io.rstore.config.Logs;
import io.rstore.protocol.wire.FrameHandler;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;
import io.rstore.transport.RegionTable;
import io.rstore.transport.SegmentWindow;
import org.slf4j.Logger;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.IntFunction;
import jdk.net.ExtendedSocketOptions;

/**
 * Serves RStore over TCP: request frames go to a {@link FrameHandler} of the connection's
 * own (the master's calls on a master, the master's chunk calls on a memory server),
 * one-sided reads and writes to the memory servers' region tables, each checked against
 * key and bounds. A new connection answers the challenge in the {@link HandshakeGate}, apart
 * from the authenticated ones; then one thread per connection answers its frames in order,
 * sleeping in its selector while the connection is idle. A malformed frame is answered with
 * INVALID_FRAME and the connection is closed; everyone else is served on.
 *
 * <p>What a connection may cost is bounded ({@link NetLimits}): at most so many
 * authenticated at once (one more gets an OVERLOADED refusal instead of the challenge or
 * the verdict), the challenge answered within the handshake bound, buffers that grow only
 * as a frame's bytes arrive and shrink after a large one, a begun frame finished within the
 * frame bound. Accept failures (out of descriptors) back off and are logged at most once a
 * second.
 */
public final class TcpServer implements AutoCloseable {
    private static final Logger LOG = Logs.get("rstore");
    private final ServerSocketChannel listener;
    private final Function<SocketAddress, FrameHandler> handlers;
    private final IntFunction<RegionTable> regions;
    private final Set<SocketChannel> connections = ConcurrentHashMap.newKeySet();
    private final Set<Selector> waitingForFrames = ConcurrentHashMap.newKeySet(); // woken at close
    private final AtomicInteger open = new AtomicInteger(); // authenticated connections
    private final HandshakeGate gate;
    private final NetLimits limits;
    private final ServerMetrics metrics;
    private final int maxConnections;
    private final Thread acceptor;
    private volatile boolean closed;

    /**
     * @param handlers a handler for each new connection from the given peer, closed when the connection ends
     * @param regions  the region table of memory server {@code id}, or null if not served here
     */
    public TcpServer(InetSocketAddress bind, Function<SocketAddress, FrameHandler> handlers, IntFunction<RegionTable> regions, String secret,
                     NetLimits limits, ServerMetrics metrics) throws IOException {
        this.limits = limits;
        this.metrics = metrics;
        metrics.connectionsOpen(open::get);
        this.maxConnections = Math.min(limits.maxConnections(), limits.connectionsTheDescriptorLimitAllows());
        this.listener = ServerSocketChannel.open().bind(bind, ACCEPT_BACKLOG);
        this.handlers = handlers;
        this.regions = regions;
        this.gate = new HandshakeGate(secret == null ? "" : secret, limits, new HandshakeGate.Outcome() {
            @Override
            public boolean authenticated(SocketChannel channel) throws IOException {
                return enter(channel);
            }

            @Override
            public void refused(String what, SocketChannel channel) {
                metrics.refused.mark();
                logRefusal(what, "; connection closed");
            }
        });
        this.acceptor = Thread.ofPlatform().name("rstore-accept").daemon().start(this::accept);
    }

    private static final int ACCEPT_BACKLOG = 1024;
    private static final long CONNECTION_STACK = 256 << 10;

    /** The connections served at once: the configured limit, or less where the descriptor limit allows fewer. */
    public int maxConnections() {
        return maxConnections;
    }

    /** Connections open now. */
    public int connections() {
        return open.get();
    }

    public int port() {
        try {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void accept() {
        long backoffMs = 0;
        while (!closed) {
            SocketChannel channel;
            try {
                channel = listener.accept();
                backoffMs = 0;
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) { // e.g. out of descriptors: the pending connection stays queued; try again later
                if (closed) {
                    return;
                }
                backoffMs = Math.min(MAX_ACCEPT_BACKOFF_MS, Math.max(1, backoffMs * 2));
                logRefusal("accept failed: " + e.getMessage() + "; backing off " + backoffMs + " ms", "");
                LockSupport.parkNanos(backoffMs * 1_000_000L);
                continue;
            }
            if (open.get() >= maxConnections) { // no place for it even if it proves itself: say so at once
                metrics.refused.mark();
                refuseOverLimit(channel);
                continue;
            }
            try {
                channel.socket().setTcpNoDelay(true);
                keepAlive(channel);
                if (!gate.admit(channel)) {
                    closeQuietly(channel);
                }
            } catch (IOException e) { // it went away first
                closeQuietly(channel);
            } catch (InterruptedException e) {
                closeQuietly(channel);
                return;
            }
        }
    }

    /**
     * A connection that proved itself takes a place, hears its verdict and gets a thread;
     * false (after the OVERLOADED refusal in place of the verdict) when every place is taken.
     */
    private boolean enter(SocketChannel channel) throws IOException {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            metrics.refused.mark();
            HandshakeGate.writeAll(channel, Handshake.refusal(maxConnections));
            logRefusal("a connection from " + channel.getRemoteAddress() + ": " + maxConnections
                    + " connections open, the limit (rstore.net.max-connections)", "; connection closed");
            return false;
        }
        try {
            if (!HandshakeGate.writeAll(channel, Handshake.verdict(true))) {
                open.decrementAndGet();
                return false;
            }
            connections.add(channel);
            Thread.ofPlatform().name("rstore-conn-" + threads++).stackSize(CONNECTION_STACK).daemon().start(() -> serve(channel));
            return true;
        } catch (RuntimeException | OutOfMemoryError e) { // no thread to be had: this one connection is refused
            connections.remove(channel);
            open.decrementAndGet();
            metrics.refused.mark();
            logRefusal("a connection (" + e + ")", "; connection closed");
            return false;
        }
    }

    private int threads; // names the connection threads; only the handshake thread counts

    private static final long MAX_ACCEPT_BACKOFF_MS = 1_000;

    /** The refusal in place of the challenge (a few bytes into a fresh socket's buffer: never blocks for long), then the hang-up. */
    private void refuseOverLimit(SocketChannel channel) {
        try (channel) {
            channel.configureBlocking(false);
            channel.write(Handshake.refusal(maxConnections));
            logRefusal("a connection from " + channel.getRemoteAddress() + ": " + maxConnections
                    + " connections open, the limit (rstore.net.max-connections)", "; connection closed");
        } catch (IOException e) {
            // it went away first
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /**
     * The heartbeat for half-open connections (a client host that vanished without a FIN
     * or RST): the kernel probes an idle connection after 10 s, every 2 s, and gives up
     * after 3 unanswered probes, which ends the connection and so closes its sessions.
     */
    private static void keepAlive(SocketChannel channel) {
        try {
            channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
            channel.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 10);
            channel.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 2);
            channel.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
        } catch (IOException | UnsupportedOperationException e) {
            // not on this platform: a dead peer is then noticed when a write to it fails
        }
    }

    private void serve(SocketChannel channel) {
        FrameHandler handler = null;
        Selector opened = null;
        try (channel; Selector selector = opened = Selector.open(); FrameBuffer frame = new FrameBuffer()) {
            waitingForFrames.add(selector);
            channel.register(selector, SelectionKey.OP_READ);
            Poller poller = new Poller(channel, selector);
            handler = handlers.apply(channel.getRemoteAddress());
            ByteBuffer reply = ByteBuffer.allocateDirect(Frames.HEADER + Frames.DATA_RESPONSE_BODY).order(ByteOrder.LITTLE_ENDIAN);
            while (!closed) {
                ByteBuffer in = frame.reset();
                in.limit(4);
                if (!poller.awaitBytes(in)) {
                    return; // the peer closed
                }
                long deadline = System.nanoTime() + limits.frameTimeoutMs() * 1_000_000L; // the rest of the frame within this
                if (!poller.readFully(in, deadline)) {
                    return;
                }
                int length = in.getInt(Frames.LENGTH_AT);
                if (length < Frames.HEADER - 4 || length > Frames.MAX_FRAME) {
                    refuse(channel, "a frame of " + length + " bytes");
                    return;
                }
                // the header first: a data request's payload goes straight into chunk memory
                int fixed = Math.min(4 + length, Frames.HEADER + Frames.DATA_REQUEST_BODY);
                in.limit(fixed);
                if (!poller.readFully(in, deadline)) {
                    return;
                }
                int kind = in.get(Frames.KIND_AT);
                if (kind == Frames.DATA_REQUEST) {
                    if (!data(in, length, poller, deadline, channel, reply)) {
                        refuse(channel, "a malformed data request");
                        return;
                    }
                    continue;
                }
                // the body: the buffer grows as its bytes arrive, never ahead of them
                while (in.position() < 4 + length) {
                    if (!in.hasRemaining()) {
                        in = frame.grow(4 + length);
                    }
                    in.limit(Math.min(4 + length, in.capacity()));
                    if (!poller.readFully(in, deadline)) {
                        return;
                    }
                }
                in.flip();
                int type = in.getShort(Frames.TYPE_AT);
                long started = System.nanoTime();
                ByteBuffer answer = handler.handle(in);
                metrics.call(type).update(System.nanoTime() - started, TimeUnit.NANOSECONDS);
                metrics.bytesIn.mark(4L + length);
                metrics.bytesOut.mark(answer.remaining());
                if (answer.remaining() > 7 && answer.get(answer.position() + 7) == Frames.ERROR) {
                    metrics.errors.mark();
                }
                writeFully(channel, answer, limits.frameTimeoutMs());
                if (Frames.isHangUp(answer)) {
                    return;
                }
            }
        } catch (IOException e) {
            // the peer went away (or stalled past the frame bound): nothing to answer
        } catch (RuntimeException e) { // e.g. chunk memory closed under an operation while shutting down
            logRefusal("a connection ended by " + e, "");
        } finally {
            waitingForFrames.remove(opened);
            connections.remove(channel);
            open.decrementAndGet();
            if (handler != null) {
                handler.close(); // a client that died (even by SIGKILL) leaves no references behind
            }
        }
    }

    /**
     * A connection's frame buffer: small until a frame needs more, grown by doubling as the
     * bytes arrive (so memory follows what a peer has sent, not what its header claims), and
     * freed at once after a large frame rather than when a garbage collection notices it.
     */
    private static final class FrameBuffer implements AutoCloseable {
        private static final int SMALL = 4 << 10;
        private static final int KEPT = 64 << 10;
        private Arena arena;
        private ByteBuffer buffer;

        ByteBuffer reset() {
            if (buffer == null || buffer.capacity() > KEPT) {
                close();
                buffer = allocate(SMALL);
            }
            return buffer.clear();
        }

        /** A buffer twice as large (at most {@code max}) holding what this one read so far, ready to read on. */
        ByteBuffer grow(int max) {
            Arena old = arena;
            ByteBuffer read = buffer.flip();
            buffer = allocate((int) Math.min(max, 2L * read.capacity())).put(read);
            old.close();
            return buffer;
        }

        private ByteBuffer allocate(int bytes) {
            arena = Arena.ofConfined();
            return arena.allocate(bytes, 8).asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        }

        @Override
        public void close() {
            if (arena != null) {
                arena.close();
                arena = null;
            }
        }
    }

    /**
     * Carries out one read or write with no copy on this side: a write's payload is read
     * from the socket straight into the chunk, a read's bytes are written from the chunk
     * behind the answer's header. Returns false when the frame is malformed.
     */
    private boolean data(ByteBuffer frame, int frameLength, Poller poller, long deadline, SocketChannel channel, ByteBuffer reply)
            throws IOException {
        if (frame.position() < Frames.HEADER + Frames.DATA_REQUEST_BODY || (frame.getShort(Frames.MAGIC_AT) & 0xFFFF) != Frames.MAGIC
                || frame.get(Frames.VERSION_AT) != Frames.VERSION) {
            return false;
        }
        int type = frame.getShort(Frames.TYPE_AT);
        long correlation = frame.getLong(Frames.CORRELATION_AT);
        int body = Frames.HEADER;
        int server = frame.getInt(body);
        int chunk = frame.getInt(body + 4);
        long key = frame.getLong(body + 8);
        long offset = frame.getLong(body + 16);
        long length = frame.getLong(body + 24);
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
                if (!poller.readFully(poller.window.window(memory, offset, length), deadline)) {
                    throw new IOException("the peer closed mid-request");
                }
            } else if (!poller.discard(length, deadline)) { // refused: still take the bytes off the wire
                throw new IOException("the peer closed mid-request");
            }
        }
        if (type == Frames.READ) {
            metrics.reads.inc();
            metrics.readBytes.inc(memory == null ? 0 : length);
        } else {
            metrics.writes.inc();
            metrics.writeBytes.inc(memory == null ? 0 : length);
        }
        if (status != 0) {
            metrics.errors.mark(); // a refused access: off the fast path
        }
        boolean withPayload = type == Frames.READ && memory != null && length > 0;
        reply.clear();
        Frames.writeHeader(reply, Frames.HEADER - 4 + Frames.DATA_RESPONSE_BODY + (withPayload ? (int) length : 0),
                Frames.DATA_RESPONSE, type, correlation);
        reply.putInt(status).flip();
        ByteBuffer[] out = poller.out;
        out[0] = reply;
        out[1] = withPayload ? poller.window.window(memory, offset, length) : NOTHING;
        writeFully(channel, out, limits.frameTimeoutMs());
        out[1] = null;
        return true;
    }

    private void refuse(SocketChannel channel, String what) throws IOException {
        writeFully(channel, Frames.invalidFrameError(what), limits.frameTimeoutMs());
        logRefusal(what + " from " + channel.getRemoteAddress(), "; connection closed");
    }

    private long lastRefusalLog;
    private long refusalsNotLogged;

    /** At most one line a second, so a flood of garbage (or of failed accepts) cannot flood the log. */
    private synchronized void logRefusal(String what, String outcome) {
        long now = System.nanoTime();
        if (lastRefusalLog != 0 && now - lastRefusalLog < 1_000_000_000L) {
            refusalsNotLogged++;
            return;
        }
        String more = refusalsNotLogged > 0 ? " (and " + refusalsNotLogged + " more refusals or failures since the last line)" : "";
        LOG.warn((outcome.isEmpty() ? "" : "refused ") + what + outcome + more);
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
        private boolean eof;

        Poller(SocketChannel channel, Selector selector) {
            this.channel = channel;
            this.selector = selector;
        }

        /** Reads and drops {@code bytes} (the payload of a refused write), giving up (false) at {@code deadline}. */
        boolean discard(long bytes, long deadline) throws IOException {
            ByteBuffer scratch = ByteBuffer.allocate((int) Math.min(bytes, 1 << 16));
            for (long left = bytes; left > 0; left -= scratch.position()) {
                scratch.clear().limit((int) Math.min(left, scratch.capacity()));
                if (!readFully(scratch, deadline)) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Waits, with no bound, until some bytes arrive in {@code buffer} (false: the peer
         * closed, or this server did): a spin after the last frame, then the selector with
         * no timeout, so an idle connection's thread sleeps until its peer writes.
         */
        boolean awaitBytes(ByteBuffer buffer) throws IOException {
            long idleSince = System.nanoTime();
            int start = buffer.position();
            while (buffer.position() == start) {
                if (channel.read(buffer) < 0) {
                    eof = true;
                    return false;
                }
                if (closed) { // close() sets this, then wakes the selector
                    return false;
                }
                if (buffer.position() == start) {
                    if (System.nanoTime() - idleSince < SPIN_NANOS) {
                        Thread.onSpinWait();
                    } else {
                        selector.select();
                        selector.selectedKeys().clear();
                    }
                }
            }
            return true;
        }

        /** Fills {@code buffer}, giving up (false) at {@code deadline} (System.nanoTime()) or when the peer closes. */
        boolean readFully(ByteBuffer buffer, long deadline) throws IOException {
            long idleSince = System.nanoTime();
            while (buffer.hasRemaining()) {
                int n = channel.read(buffer);
                if (n < 0) {
                    eof = true;
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

    /** Writes all of {@code buffer} to a non-blocking channel (a full socket means the client is busy: wait, within {@code boundMs}). */
    private static void writeFully(SocketChannel channel, ByteBuffer buffer, long boundMs) throws IOException {
        writeFully(channel, new ByteBuffer[] {buffer}, boundMs);
    }

    /** A client that takes none of an answer's bytes for {@code boundMs} is dropped (its connection closed). */
    private static void writeFully(SocketChannel channel, ByteBuffer[] buffers, long boundMs) throws IOException {
        long progress = System.nanoTime();
        while (buffers[buffers.length - 1].hasRemaining() || buffers[0].hasRemaining()) {
            if (channel.write(buffers) > 0) {
                progress = System.nanoTime();
            } else if (System.nanoTime() - progress > boundMs * 1_000_000L) {
                throw new IOException("the client took no bytes for " + boundMs + " ms");
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
        gate.close();
        for (Selector s : waitingForFrames) {
            s.wakeup();
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

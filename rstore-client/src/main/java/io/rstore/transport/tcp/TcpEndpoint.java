package io.rstore.transport.tcp;

import io.rstore.Completion;
import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;
import io.rstore.transport.Endpoint;
import io.rstore.transport.SegmentWindow;
import io.rstore.transport.Transport;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A client's connection to one memory server over TCP, polled by whoever waits, as RDMA
 * programs poll their completion queues: posting writes the request (a write's payload
 * straight from the mapping) and returns; {@link #poll()} reads the answers that have
 * arrived, in order, a read's payload straight into the mapping, and completes them.
 * There is no reader thread, so on a small machine the waiting caller and the server are
 * the only threads that spin. Up to {@link #IN_FLIGHT} operations are in flight; a piece
 * larger than {@link #MAX_DATA} goes as several requests and completes with the last.
 * A broken connection fails everything in flight on it and is replaced at the next post,
 * as RDMA's endpoint replaces a queue pair in the error state: that connect is bounded by
 * {@link #RECONNECT_BOUND_MS}, and after it fails posts fail at once for
 * {@link #RECONNECT_BACKOFF_NANOS}. A memory server restarted on its address (a durable
 * one keeps its chunks' ids and keys) is thus read and written again by the same mappings;
 * one restarted elsewhere (another port or host) too, as a connect that fails asks the
 * master where the server is now and, if that is a new address, connects there.
 */
final class TcpEndpoint implements Endpoint {
    static final int IN_FLIGHT = 1024;
    static final long MAX_DATA = 4L << 20;
    /** A connection to a server that was just lost: a live one answers within milliseconds, a dead host would take the whole timeout. */
    static final long RECONNECT_BOUND_MS = 5_000;
    /** After a failed reconnect, posts fail at once for this long rather than each waiting for a dead server again. */
    static final long RECONNECT_BACKOFF_NANOS = 1_000_000_000L;

    private SocketChannel channel; // replaced only by a reconnect, which holds this object's lock and the receive lock
    private InetSocketAddress address; // where the server was last reached; changed only by a reconnect, as channel is
    private volatile String peer;      // the server as messages name it, with that address
    private final Transport.Locator locator; // where the master says the server is, asked when its address stops answering
    private final String secret;
    private final long timeoutMs;
    private final int serverId;
    private final long timeoutNanos;
    private long retryAfter = System.nanoTime(); // nanoTime before which a lost server is not connected to again (under this object's lock)
    private volatile boolean closed;
    private final ByteBuffer request = ByteBuffer.allocateDirect(Frames.HEADER + Frames.DATA_REQUEST_BODY).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer answer = ByteBuffer.allocateDirect(Frames.HEADER + Frames.DATA_RESPONSE_BODY).order(ByteOrder.LITTLE_ENDIAN);
    private final ReentrantLock receiving = new ReentrantLock();
    private final SegmentWindow sending = new SegmentWindow();      // under the send lock
    private final SegmentWindow receivingWindow = new SegmentWindow(); // under the receive lock
    private final ByteBuffer[] outgoing = new ByteBuffer[2]; // header and payload, under the send lock
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    // the ring of operations in flight, in the order their answers will come
    private final Completion[] completion = new Completion[IN_FLIGHT];
    private final MemorySegment[] local = new MemorySegment[IN_FLIGHT];
    private final long[] localOffset = new long[IN_FLIGHT];
    private final long[] length = new long[IN_FLIGHT];
    private final boolean[] read = new boolean[IN_FLIGHT];
    private final boolean[] last = new boolean[IN_FLIGHT];
    private volatile long posted;     // operations sent (written under the send lock)
    private volatile long answered;   // operations completed (written under the receive lock)
    private ByteBuffer payload;       // the read payload being received, if any
    private int pieceStatus;          // first failure among the requests of the piece being answered
    private volatile int failed;      // once broken: the status everything gets

    TcpEndpoint(TcpTransport.Address at, Transport.Locator locator, long timeoutMs, String secret) {
        this.serverId = at.id();
        this.peer = at.peer();
        this.address = new InetSocketAddress(at.host(), at.port());
        this.locator = locator;
        this.secret = secret;
        this.timeoutMs = timeoutMs;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.channel = open(address, peer, timeoutMs);
    }

    /**
     * A connected, authenticated, non-blocking channel to the server at {@code address}
     * ({@code peer} in messages); connecting and the handshake bounded by {@code boundMs}.
     */
    private SocketChannel open(InetSocketAddress address, String peer, long boundMs) {
        SocketChannel opened;
        try {
            opened = SocketChannel.open();
        } catch (IOException e) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot open a socket: " + e.getMessage());
        }
        try {
            int timeout = (int) Math.min(boundMs, Integer.MAX_VALUE);
            opened.socket().connect(address, timeout);
            opened.setOption(StandardSocketOptions.TCP_NODELAY, true);
            opened.socket().setSoTimeout(timeout); // bounds the handshake's reads
            Handshake.clientSide(opened.socket().getInputStream(), opened.socket().getOutputStream(), secret, peer);
            opened.configureBlocking(false);
            return opened;
        } catch (IOException | RuntimeException e) {
            closeQuietly(opened); // the failure below is what matters
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot reach " + peer + ": " + e.getMessage());
        }
    }

    @Override
    public void postRead(int chunkId, long key, long remoteOffset, MemorySegment into, int localKey, long offset, long bytes, Completion c) {
        post(Frames.READ, chunkId, key, remoteOffset, into, offset, bytes, c);
    }

    @Override
    public void postWrite(int chunkId, long key, long remoteOffset, MemorySegment from, int localKey, long offset, long bytes, Completion c) {
        post(Frames.WRITE, chunkId, key, remoteOffset, from, offset, bytes, c);
    }

    private synchronized void post(int type, int chunkId, long key, long remoteOffset, MemorySegment memory, long offset, long bytes, Completion c) {
        c.drivenBy(this);
        if (failed != 0 && !reconnect()) {
            c.complete(failed);
            return;
        }
        long done = 0;
        do {
            long n = Math.min(MAX_DATA, bytes - done);
            if (failed != 0 || !awaitRoom()) {
                c.complete(failed != 0 ? failed : ErrorCode.TIMED_OUT.code());
                return;
            }
            int slot = (int) (posted % IN_FLIGHT);
            completion[slot] = c;
            local[slot] = memory;
            localOffset[slot] = offset + done;
            length[slot] = n;
            read[slot] = type == Frames.READ;
            last[slot] = done + n == bytes;
            long correlation = posted;
            posted = correlation + 1;
            request.clear();
            int frameBytes = Frames.HEADER + Frames.DATA_REQUEST_BODY + (type == Frames.WRITE ? (int) n : 0);
            Frames.writeHeader(request, frameBytes - 4, Frames.DATA_REQUEST, type, correlation);
            request.putInt(serverId).putInt(chunkId).putLong(key).putLong(remoteOffset + done).putLong(n).flip();
            try {
                if (type == Frames.WRITE && n > 0) { // header and payload in one system call
                    outgoing[0] = request;
                    outgoing[1] = sending.window(memory, offset + done, n);
                    send(outgoing);
                    outgoing[1] = null;
                } else {
                    outgoing[0] = request;
                    outgoing[1] = EMPTY;
                    send(outgoing);
                }
            } catch (IOException e) {
                broken(ErrorCode.SERVER_UNAVAILABLE.code());
                return; // the next poll completes everything in flight with the failure
            }
            done += n;
        } while (done < bytes);
    }

    /**
     * Replaces the broken connection, once everything posted on it has completed with the
     * failure; false (the post fails with it) when the endpoint was closed, when the last
     * attempt failed less than {@link #RECONNECT_BACKOFF_NANOS} ago, or when this one fails.
     * Holds this object's lock, and takes the receive lock so that no poll reads meanwhile.
     */
    private boolean reconnect() {
        if (closed || System.nanoTime() - retryAfter < 0) {
            return false;
        }
        receiving.lock();
        try {
            drainFailed();
            long boundMs = Math.min(timeoutMs, RECONNECT_BOUND_MS);
            SocketChannel fresh;
            try {
                fresh = open(address, peer, boundMs);
            } catch (RStoreException e) {
                fresh = openWhereTheServerIsNow(boundMs);
            }
            if (fresh == null) {
                retryAfter = System.nanoTime() + RECONNECT_BACKOFF_NANOS;
                return false;
            }
            if (closed) { // closed meanwhile: close() closes the channel it finds under the receive lock, which is not this one yet
                closeQuietly(fresh);
                return false;
            }
            channel = fresh;
            posted = 0; // a connection numbers its operations from 0 (docs/protocol.md); none is in flight now
            answered = 0;
            payload = null;
            pieceStatus = 0;
            answer.clear();
            failed = 0;
            return true;
        } finally {
            receiving.unlock();
        }
    }

    /**
     * After the server's address stopped answering: a connection to where the master says the
     * server is now, when that is another address (a durable server restarted on another port
     * or host); null when it is not, when the master cannot say or the server is not reached
     * there either. Asking the master is a control-path call, bounded by its own timeout.
     */
    private SocketChannel openWhereTheServerIsNow(long boundMs) {
        try {
            TcpTransport.Address now = TcpTransport.Address.of(locator.locate(serverId));
            InetSocketAddress moved = new InetSocketAddress(now.host(), now.port());
            if (now.id() != serverId || moved.equals(address)) {
                return null;
            }
            SocketChannel fresh = open(moved, now.peer(), boundMs);
            address = moved;
            peer = now.peer();
            return fresh;
        } catch (RStoreException e) { // the master cannot say, the server is not there either, or it no longer serves over tcp
            return null;
        }
    }

    /** Waits (bounded) for a free slot, reading answers meanwhile. */
    private boolean awaitRoom() {
        long deadline = System.nanoTime() + timeoutNanos;
        while (posted - answered >= IN_FLIGHT) {
            if (failed != 0 || System.nanoTime() - deadline > 0) {
                return false;
            }
            if (!poll()) {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /** Writes all of {@code buffers}; while the socket is full, reads answers so the server can go on. */
    private void send(ByteBuffer[] buffers) throws IOException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (buffers[0].hasRemaining() || buffers[1].hasRemaining()) {
            if (channel.write(buffers) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException(peer + " took no data for " + timeoutNanos / 1_000_000 + " ms");
                }
                if (!poll()) {
                    LockSupport.parkNanos(1_000);
                }
            }
        }
    }

    @Override
    public boolean poll() {
        if (!receiving.tryLock()) {
            return false; // another thread is reading answers: they will complete ours too
        }
        try {
            if (failed != 0) {
                return drainFailed();
            }
            boolean progressed = false;
            while (answered < posted) {
                int slot = (int) (answered % IN_FLIGHT);
                if (payload == null) {
                    if (channel.read(answer) < 0) {
                        throw new IOException(peer + " closed the connection");
                    }
                    if (answer.hasRemaining()) {
                        return progressed;
                    }
                    int status = answer.getInt(Frames.HEADER);
                    if (answer.get(Frames.KIND_AT) != Frames.DATA_RESPONSE || answer.getLong(Frames.CORRELATION_AT) != answered) {
                        throw new IOException("answer #" + answer.getLong(Frames.CORRELATION_AT) + " arrived where #" + answered + " was due");
                    }
                    answer.clear();
                    if (status == 0 && read[slot] && length[slot] > 0) {
                        payload = receivingWindow.window(local[slot], localOffset[slot], length[slot]);
                    } else {
                        finish(slot, status);
                        progressed = true;
                        continue;
                    }
                }
                if (channel.read(payload) < 0) {
                    throw new IOException(peer + " closed the connection");
                }
                if (payload.hasRemaining()) {
                    return progressed;
                }
                payload = null;
                finish(slot, 0);
                progressed = true;
            }
            return progressed;
        } catch (IOException | RuntimeException e) {
            broken(ErrorCode.SERVER_UNAVAILABLE.code());
            return drainFailed();
        } finally {
            receiving.unlock();
        }
    }

    /** One request answered; its piece completes with the last of its requests. */
    private void finish(int slot, int status) {
        if (pieceStatus == 0) {
            pieceStatus = status;
        }
        Completion c = completion[slot];
        boolean end = last[slot];
        completion[slot] = null;
        local[slot] = null;
        answered = answered + 1;
        if (end) {
            int outcome = pieceStatus;
            pieceStatus = 0;
            c.complete(outcome);
        }
    }

    /** Completes everything in flight with the failure. Holds the receive lock. */
    private boolean drainFailed() {
        boolean any = answered < posted;
        while (answered < posted) {
            int slot = (int) (answered % IN_FLIGHT);
            Completion c = completion[slot];
            boolean end = last[slot];
            completion[slot] = null;
            local[slot] = null;
            answered = answered + 1;
            if (end && c != null) {
                c.complete(failed);
            }
        }
        return any;
    }

    private void broken(int status) {
        if (failed == 0) {
            failed = status;
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already broken
        }
    }

    @Override
    public void close() {
        closed = true;
        broken(ErrorCode.CLOSED.code());
        receiving.lock();
        try {
            broken(ErrorCode.CLOSED.code()); // again: a reconnect that was under way has put a new channel in place
            drainFailed();
        } finally {
            receiving.unlock();
        }
    }
}

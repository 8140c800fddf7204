package io.rstore.transport.rdma;

import io.rstore.Completion;
import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.transport.Endpoint;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A client's reliable connection to one memory server's RDMA device, shared by all its
 * mappings. A chunk is resolved once (id and key to address and rkey, an RPC over
 * SEND/RECV), then every read and write is a one-sided work request naming the local
 * memory by the lkey its mapping's arena was registered under; up to the queue's depth
 * are in flight, completed by whoever polls, in posting order. A piece larger than
 * {@link #MAX_WORK_REQUEST}, or across a piece of the local registration, goes as several
 * work requests and completes with the last.
 * A queue pair in the error state (a failed access, a peer that went away) is replaced
 * by a new connection at the next post, once everything in flight was flushed; that
 * connect is bounded by {@link #RECONNECT_BOUND_MS}, and after it fails posts fail at once
 * for {@link #RECONNECT_BACKOFF_NANOS}. Where the server's address does not answer, the new
 * connection goes to where the master says it is now (a server started again elsewhere: an
 * emulated device listens on a new port at each start), and chunks are resolved anew after
 * every reconnect, as a server started again has registered them anew.
 */
final class RdmaEndpoint implements Endpoint {
    static final int MAX_WORK_REQUEST = (int) RdmaDevice.PIECE;
    /**
     * A connection to a server that was just lost: a live listener answers within
     * milliseconds, while a connection manager facing a dead host waits out whatever bound
     * it is given (the 30 s operation timeout, on SoftRoCE), holding the endpoint's lock.
     */
    static final long RECONNECT_BOUND_MS = 5_000;
    /** After a failed reconnect, posts fail at once for this long rather than each waiting for a dead server again. */
    static final long RECONNECT_BACKOFF_NANOS = 1_000_000_000L;

    private record Chunk(long key, long address, long length, int rkey) {
    }

    private final RdmaDevice device;
    private InetSocketAddress at; // changed only by a reconnect, under the lock
    private final Supplier<InetSocketAddress> whereNow; // the server's address on this device as the master gives it; null if elsewhere
    private final LocalRegions.Device local;
    private QueuePair qp;
    private final String server; // what messages call it, before its address
    private final long timeoutMs;
    private final ReentrantLock lock = new ReentrantLock(); // one thread drives the queue pair at a time
    private volatile Chunk[] chunks = new Chunk[64];

    // the ring of work requests in flight: which completion each ends, in posting order; at most
    // depth of them, in a ring of a power of two indexed by a mask (a division per work request
    // showed under QEMU's emulation, where the rdma latency target is measured)
    private final int depth;
    private final Completion[] completion;
    private final boolean[] last;
    private final int mask;
    private long posted;
    private long completed;
    private int pieceStatus;
    private long retryAfter = System.nanoTime(); // nanoTime before which a lost server is not connected to again

    RdmaEndpoint(RdmaDevice device, InetSocketAddress at, Supplier<InetSocketAddress> whereNow, LocalRegions regions, String server, long timeoutMs) {
        this.device = device;
        this.at = at;
        this.whereNow = whereNow;
        this.server = server;
        this.timeoutMs = timeoutMs;
        this.qp = device.connect(at, timeoutMs, this::completed);
        this.local = regions.on(device); // after the first connection: a DiSNI device has its protection domain then
        this.depth = qp.depth();
        int ring = Integer.highestOneBit(Math.max(1, depth - 1)) << 1;
        this.completion = new Completion[ring];
        this.last = new boolean[ring];
        this.mask = ring - 1;
    }

    @Override
    public void postRead(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion c) {
        post(false, chunkId, key, remoteOffset, local, localKey, localOffset, length, c);
    }

    @Override
    public void postWrite(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion c) {
        post(true, chunkId, key, remoteOffset, local, localKey, localOffset, length, c);
    }

    private void post(boolean write, int chunkId, long key, long remoteOffset, MemorySegment memory, int localKey, long localOffset, long length,
                      Completion c) {
        c.drivenBy(this);
        lock.lock();
        try {
            Chunk chunk;
            try {
                if (qp.failed()) {
                    if (System.nanoTime() - retryAfter < 0) { // the last reconnect failed just now: the server is still gone
                        c.complete(ErrorCode.SERVER_UNAVAILABLE.code());
                        return;
                    }
                    reconnect();
                }
                chunk = chunk(chunkId, key);
            } catch (RStoreException e) { // the resolving call failed: the piece fails, posting never throws
                c.complete(e.code().code());
                return;
            }
            if (chunk == null) {
                c.complete(ErrorCode.UNAUTHORIZED.code());
                return;
            }
            if (remoteOffset < 0 || length < 0 || length > chunk.length() - remoteOffset) {
                c.complete(ErrorCode.OUT_OF_BOUNDS.code());
                return;
            }
            if (length == 0) {
                c.complete(0);
                return;
            }
            for (long done = 0; done < length; ) {
                long localAddress = memory.address() + localOffset + done;
                int n = (int) local.withinPiece(localKey, localAddress, Math.min(MAX_WORK_REQUEST, length - done));
                if (posted - completed >= depth && !reaped()) {
                    c.complete(ErrorCode.TIMED_OUT.code());
                    return;
                }
                int slot = (int) posted & mask;
                completion[slot] = c;
                last[slot] = done + n == length;
                long wrId = posted++;
                int lkey = local.lkey(localKey, localAddress);
                if (write) {
                    qp.postWrite(wrId, localAddress, lkey, chunk.address() + remoteOffset + done, chunk.rkey(), n);
                } else {
                    qp.postRead(wrId, localAddress, lkey, chunk.address() + remoteOffset + done, chunk.rkey(), n);
                }
                done += n;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The queue is full: polls until a work request completes, within the operation
     * timeout. False when none did. The clock is read here, not on every post.
     */
    private boolean reaped() {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (posted - completed >= depth) {
            if (qp.poll() == 0 && System.nanoTime() - deadline > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * A new queue pair for one in the error state, once everything posted on the old one was
     * flushed (bounded by the timeout), at the server's address or, where that does not
     * answer, at the one the master gives now. The chunks are resolved again: a connection
     * that broke because the server was started again finds them registered anew.
     */
    private void reconnect() {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (completed < posted) {
            if (qp.poll() == 0 && System.nanoTime() - deadline > 0) {
                throw ErrorCode.TIMED_OUT.exception(peer() + " did not flush its failed queue pair within " + timeoutMs + " ms");
            }
        }
        qp.close();
        long boundMs = Math.min(timeoutMs, RECONNECT_BOUND_MS);
        try {
            qp = device.connect(at, boundMs, this::completed);
        } catch (RStoreException e) {
            InetSocketAddress moved = movedTo();
            if (moved == null) {
                retryAfter = System.nanoTime() + RECONNECT_BACKOFF_NANOS;
                throw e;
            }
            try {
                qp = device.connect(moved, boundMs, this::completed);
            } catch (RStoreException again) {
                retryAfter = System.nanoTime() + RECONNECT_BACKOFF_NANOS;
                throw again;
            }
            at = moved;
        }
        chunks = new Chunk[64];
    }

    /** The server as messages name it: what it is and where. */
    private String peer() {
        return server + " at " + at.getHostString() + ":" + at.getPort();
    }

    /** Where the master says the server is now on this device, if that is another address; null if not, or if the master cannot say. */
    private InetSocketAddress movedTo() {
        try {
            InetSocketAddress now = whereNow.get();
            return now != null && !now.equals(at) ? now : null;
        } catch (RStoreException e) {
            return null;
        }
    }

    /** The chunk's registered memory: cached, else resolved by RPC (first access, or a new key). Null: no such chunk and key. */
    private Chunk chunk(int chunkId, long key) {
        Chunk[] table = chunks;
        Chunk cached = chunkId >= 0 && chunkId < table.length ? table[chunkId] : null;
        if (cached != null && cached.key() == key) {
            return cached;
        }
        if (chunkId < 0) {
            return null;
        }
        ByteBuffer answer = qp.call(ChunkResolver.request(chunkId, key), timeoutMs).order(ByteOrder.LITTLE_ENDIAN);
        int status = answer.getInt(0);
        if (status != 0) {
            if (status == ErrorCode.UNAUTHORIZED.code()) {
                return null;
            }
            throw ErrorCode.of(status).exception(peer() + " would not resolve chunk " + chunkId);
        }
        Chunk chunk = new Chunk(key, answer.getLong(4), answer.getLong(12), answer.getInt(20));
        Chunk[] grown = Arrays.copyOf(table, Math.max(table.length, Integer.highestOneBit(chunkId) * 2));
        grown[chunkId] = chunk;
        chunks = grown;
        return chunk;
    }

    /** A work request completed (called by the queue pair, under the lock). */
    private void completed(long wrId, int status) {
        int slot = (int) wrId & mask;
        if (pieceStatus == 0) {
            pieceStatus = QueuePair.errorCode(status).code();
        }
        Completion c = completion[slot];
        completion[slot] = null;
        completed++;
        if (last[slot]) {
            int outcome = pieceStatus;
            pieceStatus = 0;
            c.complete(outcome);
        }
    }

    @Override
    public boolean poll() {
        if (!lock.tryLock()) {
            return false; // another thread is reaping: it completes ours too
        }
        try {
            return qp.poll() > 0;
        } catch (RStoreException e) {
            return false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            qp.close();
            qp.poll(); // flushes what was in flight, in error
        } finally {
            lock.unlock();
        }
    }
}

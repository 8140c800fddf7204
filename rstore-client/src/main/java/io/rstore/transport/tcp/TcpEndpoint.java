package io.rstore.transport.tcp;

import io.rstore.Completion;
import io.rstore.ErrorCode;
import io.rstore.protocol.wire.Frames;
import io.rstore.transport.Endpoint;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * A client's connection to one memory server over TCP. Posting writes a request frame
 * (header, then the payload straight from the mapping for a write) and returns; a reader
 * thread takes the answers in order and completes them, reading a read's payload straight
 * into the mapping. Many operations are in flight at once (up to {@link #IN_FLIGHT}); a
 * piece larger than {@link #MAX_DATA} goes as several requests and completes with the last.
 */
final class TcpEndpoint implements Endpoint {
    static final int IN_FLIGHT = 1024;
    static final long MAX_DATA = 4L << 20;

    private final SocketChannel channel;
    private final int serverId;
    private final String peer;
    private final long timeoutNanos;
    private final ByteBuffer request = ByteBuffer.allocateDirect(Frames.HEADER + Frames.DATA_REQUEST_BODY).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer response = ByteBuffer.allocateDirect(Frames.HEADER + Frames.DATA_RESPONSE_BODY).order(ByteOrder.LITTLE_ENDIAN);

    // the ring of operations in flight, in the order their answers will come
    private final Completion[] completion = new Completion[IN_FLIGHT];
    private final MemorySegment[] local = new MemorySegment[IN_FLIGHT];
    private final long[] localOffset = new long[IN_FLIGHT];
    private final long[] length = new long[IN_FLIGHT];
    private final boolean[] read = new boolean[IN_FLIGHT];
    private final boolean[] last = new boolean[IN_FLIGHT];
    private volatile long posted;    // operations sent
    private volatile long answered;  // operations completed
    private int pieceStatus;         // first failure among the requests of the piece being answered
    private volatile int failed;     // once the connection broke: the status every operation gets
    private final Thread reader;

    TcpEndpoint(String host, int port, int serverId, long timeoutMs) {
        this.serverId = serverId;
        this.peer = host + ":" + port + " (memory server " + serverId + ")";
        this.timeoutNanos = timeoutMs * 1_000_000L;
        try {
            channel = SocketChannel.open();
            channel.socket().connect(new InetSocketAddress(host, port), (int) Math.min(timeoutMs, Integer.MAX_VALUE));
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        } catch (IOException e) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot reach " + peer + ": " + e.getMessage());
        }
        reader = Thread.ofPlatform().name("rstore-tcp-" + serverId).daemon().start(this::readAnswers);
    }

    @Override
    public void postRead(int chunkId, int key, long remoteOffset, MemorySegment into, long offset, long bytes, Completion c) {
        post(Frames.READ, chunkId, key, remoteOffset, into, offset, bytes, c);
    }

    @Override
    public void postWrite(int chunkId, int key, long remoteOffset, MemorySegment from, long offset, long bytes, Completion c) {
        post(Frames.WRITE, chunkId, key, remoteOffset, from, offset, bytes, c);
    }

    private synchronized void post(int type, int chunkId, int key, long remoteOffset, MemorySegment memory, long offset, long bytes, Completion c) {
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
            request.putInt(serverId).putInt(chunkId).putInt(key).putLong(remoteOffset + done).putLong(n).flip();
            try {
                writeFully(request);
                if (type == Frames.WRITE && n > 0) {
                    writeFully(memory.asSlice(offset + done, n).asByteBuffer());
                }
            } catch (IOException e) {
                fail(ErrorCode.SERVER_UNAVAILABLE.code());
                return; // the reader completes everything posted with the failure
            }
            done += n;
        } while (done < bytes);
    }

    /** Waits (bounded) until the ring has a free slot. */
    private boolean awaitRoom() {
        long deadline = System.nanoTime() + timeoutNanos;
        while (posted - answered >= IN_FLIGHT) {
            if (failed != 0 || System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(10_000);
        }
        return true;
    }

    private void readAnswers() {
        try {
            while (true) {
                response.clear();
                readFully(response);
                long correlation = response.getLong(10);
                int status = response.getInt(Frames.HEADER);
                if (response.get(7) != Frames.DATA_RESPONSE || correlation != answered) {
                    throw new IOException("answer #" + correlation + " arrived where #" + answered + " was due");
                }
                int slot = (int) (answered % IN_FLIGHT);
                if (status == 0 && read[slot] && length[slot] > 0) {
                    readFully(local[slot].asSlice(localOffset[slot], length[slot]).asByteBuffer());
                }
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
        } catch (IOException | RuntimeException e) {
            fail(ErrorCode.SERVER_UNAVAILABLE.code());
        }
    }

    /** The connection broke: everything in flight, and everything posted later, fails. */
    private void fail(int status) {
        if (failed == 0) {
            failed = status;
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // already broken
        }
        if (Thread.currentThread() == reader) {
            synchronized (this) {
                for (long op = answered; op < posted; op++) {
                    int slot = (int) (op % IN_FLIGHT);
                    if (last[slot] && completion[slot] != null) {
                        completion[slot].complete(failed);
                    }
                    completion[slot] = null;
                    local[slot] = null;
                }
                answered = posted;
            }
        }
    }

    private void writeFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new IOException(peer + " closed the connection");
            }
        }
    }

    @Override
    public void close() {
        fail(ErrorCode.CLOSED.code());
        try {
            reader.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

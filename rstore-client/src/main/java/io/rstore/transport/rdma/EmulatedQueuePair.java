package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.transport.SegmentWindow;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;

/**
 * The requester side of an {@link EmulatedDevice} connection: work requests go out on a
 * socket; {@link #poll} reads their completions, a READ's bytes straight into the local
 * memory its work request named, as a NIC's DMA would.
 */
final class EmulatedQueuePair implements QueuePair {
    private static final int DEPTH = 256;

    private final SocketChannel channel;
    private final String peer;
    private final long timeoutNanos;
    private final CompletionSink sink;
    private final ByteBuffer request = ByteBuffer.allocateDirect(EmulatedDevice.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer response = ByteBuffer.allocateDirect(EmulatedDevice.RESPONSE_HEADER).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] outgoing = new ByteBuffer[2];
    private final SegmentWindow sending = new SegmentWindow();
    private final SegmentWindow receiving = new SegmentWindow();
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    // what each outstanding work request needs at completion, in posting order
    private final long[] wrIds = new long[DEPTH];
    private final MemorySegment[] locals = new MemorySegment[DEPTH];
    private final long[] offsets = new long[DEPTH];
    private final int[] lengths = new int[DEPTH];
    private final int[] ops = new int[DEPTH];
    private long posted;
    private long reaped;
    private ByteBuffer payload;       // a READ's bytes (or a SEND's answer) being received
    private ByteBuffer answer;        // the answer of the call in flight
    private boolean broken;

    EmulatedQueuePair(InetSocketAddress peer, long timeoutMs, CompletionSink sink) {
        this.peer = "the emulated RDMA device at " + peer;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.sink = sink;
        try {
            channel = SocketChannel.open();
            channel.socket().connect(peer, (int) Math.min(timeoutMs, Integer.MAX_VALUE));
            channel.socket().setTcpNoDelay(true);
            channel.configureBlocking(false);
        } catch (IOException e) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot connect a queue pair to " + this.peer + ": " + e.getMessage());
        }
    }

    @Override
    public int depth() {
        return DEPTH;
    }

    @Override
    public void postRead(long wrId, MemorySegment local, long localOffset, long remoteAddress, int rkey, int length) {
        post(EmulatedDevice.READ, wrId, local, localOffset, remoteAddress, rkey, length, null);
    }

    @Override
    public void postWrite(long wrId, MemorySegment local, long localOffset, long remoteAddress, int rkey, int length) {
        post(EmulatedDevice.WRITE, wrId, local, localOffset, remoteAddress, rkey, length, null);
    }

    private void post(int op, long wrId, MemorySegment local, long localOffset, long remoteAddress, int rkey, int length, ByteBuffer message) {
        if (posted - reaped >= DEPTH) {
            throw new IllegalStateException("the send queue is full (" + DEPTH + "); poll first");
        }
        int slot = (int) (posted % DEPTH);
        wrIds[slot] = wrId;
        locals[slot] = local;
        offsets[slot] = localOffset;
        lengths[slot] = length;
        ops[slot] = op;
        posted++;
        if (broken) {
            return; // completes with the failure at the next poll
        }
        boolean carries = op != EmulatedDevice.READ && length > 0;
        request.clear();
        request.putInt(EmulatedDevice.REQUEST_HEADER - 4 + (carries ? length : 0)).put((byte) op).putLong(wrId).putLong(remoteAddress)
                .putInt(rkey).putInt(length).flip();
        outgoing[0] = request;
        outgoing[1] = !carries ? EMPTY : message != null ? message : sending.window(local, localOffset, length);
        try {
            long deadline = System.nanoTime() + timeoutNanos;
            while (outgoing[0].hasRemaining() || outgoing[1].hasRemaining()) {
                if (channel.write(outgoing) == 0) {
                    poll(); // the responder may be waiting for us to take its completions
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("took no work requests for " + timeoutNanos / 1_000_000 + " ms");
                    }
                }
            }
        } catch (IOException e) {
            broken = true;
        } finally {
            outgoing[1] = null;
        }
    }

    @Override
    public int poll() {
        int reapedNow = 0;
        try {
            while (reaped < posted && !broken) {
                int slot = (int) (reaped % DEPTH);
                if (payload == null) {
                    if (channel.read(response) < 0) {
                        throw new IOException(peer + " closed the queue pair");
                    }
                    if (response.hasRemaining()) {
                        return reapedNow;
                    }
                    int bytes = response.getInt(0) - (EmulatedDevice.RESPONSE_HEADER - 4);
                    int status = response.getInt(13);
                    if (response.getLong(5) != wrIds[slot] || bytes < 0) {
                        throw new IOException(peer + " completed work request " + response.getLong(5) + " where " + wrIds[slot] + " was due");
                    }
                    response.clear();
                    if (bytes > 0) {
                        if (ops[slot] == EmulatedDevice.SEND) {
                            answer = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
                            payload = answer;
                        } else if (ops[slot] == EmulatedDevice.READ && status == 0 && bytes == lengths[slot]) {
                            payload = receiving.window(locals[slot], offsets[slot], bytes);
                        } else {
                            throw new IOException(peer + " sent " + bytes + " bytes with completion " + wrIds[slot]);
                        }
                    } else {
                        complete(slot, status);
                        reapedNow++;
                        continue;
                    }
                }
                if (channel.read(payload) < 0) {
                    throw new IOException(peer + " closed the queue pair");
                }
                if (payload.hasRemaining()) {
                    return reapedNow;
                }
                payload = null;
                complete(slot, 0);
                reapedNow++;
            }
        } catch (IOException e) {
            broken = true;
        }
        if (broken) { // a broken queue pair flushes its work requests in error, as a QP in the error state does
            while (reaped < posted) {
                complete((int) (reaped % DEPTH), ErrorCode.SERVER_UNAVAILABLE.code());
                reapedNow++;
            }
        }
        return reapedNow;
    }

    private void complete(int slot, int status) {
        locals[slot] = null;
        reaped++;
        if (ops[slot] != EmulatedDevice.SEND) {
            sink.completed(wrIds[slot], status);
        } else if (status != 0) {
            answer = null;
        }
    }

    @Override
    public ByteBuffer call(ByteBuffer message, long timeoutMs) {
        if (message.remaining() > RdmaDevice.MAX_MESSAGE) {
            throw ErrorCode.INVALID_ARGUMENT.exception("a message of " + message.remaining() + " bytes exceeds " + RdmaDevice.MAX_MESSAGE);
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (posted - reaped >= DEPTH) { // a full queue: room first, within the same bound
            if (poll() == 0 && System.nanoTime() - deadline > 0) {
                throw ErrorCode.TIMED_OUT.exception(peer + " completed no work request within " + timeoutMs + " ms");
            }
        }
        answer = null;
        long target = posted + 1;
        post(EmulatedDevice.SEND, -1, null, 0, 0, 0, message.remaining(), message);
        while (reaped < target) {
            poll();
            if (System.nanoTime() - deadline > 0) {
                broken = true;
                poll();
                throw ErrorCode.TIMED_OUT.exception(peer + " did not answer within " + timeoutMs + " ms");
            }
            Thread.onSpinWait();
        }
        if (answer == null) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("lost the queue pair to " + peer);
        }
        return answer.flip(); // received in full: from its start to its end
    }

    @Override
    public void close() {
        broken = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

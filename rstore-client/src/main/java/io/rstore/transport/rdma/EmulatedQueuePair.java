package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.wire.Handshake;
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
 * memory its work request named, as a NIC's DMA would. Its local memory must be registered
 * on the same device (checked at posting, like a NIC's lkey check); the first failure puts
 * the queue pair in the error state, and everything after it is flushed.
 */
final class EmulatedQueuePair implements QueuePair {
    private static final int DEPTH = 256;
    private static final int PENDING = -1; // on the wire, awaiting the responder's completion

    private final EmulatedDevice device;
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
    private final int[] statuses = new int[DEPTH]; // PENDING, or decided at posting (a local error, flushed)
    private long posted;
    private long reaped;
    private ByteBuffer payload;       // a READ's bytes (or a SEND's answer) being received
    private ByteBuffer answer;        // the answer of the call in flight
    private boolean failed;           // the error state: nothing more goes on the wire
    private boolean peerGone;         // the connection ended: whatever is on the wire is flushed

    EmulatedQueuePair(EmulatedDevice device, InetSocketAddress peer, long timeoutMs, CompletionSink sink) {
        this.device = device;
        this.peer = "the emulated RDMA device at " + peer;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.sink = sink;
        try {
            channel = SocketChannel.open();
        } catch (IOException e) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot open a socket: " + e.getMessage());
        }
        try {
            channel.socket().connect(peer, (int) Math.min(timeoutMs, Integer.MAX_VALUE));
            channel.socket().setTcpNoDelay(true);
            channel.socket().setSoTimeout((int) Math.min(timeoutMs, Integer.MAX_VALUE)); // bounds the handshake's reads
            Handshake.clientSide(channel.socket().getInputStream(), channel.socket().getOutputStream(), device.secret(), this.peer);
            channel.configureBlocking(false);
        } catch (IOException | RuntimeException e) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // the failure below is what matters
            }
            if (e instanceof RStoreException refused) {
                throw refused;
            }
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot connect a queue pair to " + this.peer + ": " + e.getMessage());
        }
    }

    @Override
    public int depth() {
        return DEPTH;
    }

    @Override
    public boolean failed() {
        return failed;
    }

    @Override
    public void postRead(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length) {
        post(EmulatedDevice.READ, wrId, localAddress, lkey, remoteAddress, rkey, length, null);
    }

    @Override
    public void postWrite(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length) {
        post(EmulatedDevice.WRITE, wrId, localAddress, lkey, remoteAddress, rkey, length, null);
    }

    private void post(int op, long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length, ByteBuffer message) {
        if (posted - reaped >= DEPTH) {
            throw new IllegalStateException("the send queue is full (" + DEPTH + "); poll first");
        }
        int slot = (int) (posted % DEPTH);
        MemorySegment memory = op == EmulatedDevice.SEND ? null : device.local(lkey, localAddress, length, op == EmulatedDevice.READ);
        wrIds[slot] = wrId;
        ops[slot] = op;
        lengths[slot] = length;
        locals[slot] = memory;
        offsets[slot] = memory == null ? 0 : localAddress - memory.address();
        posted++;
        if (failed) {
            statuses[slot] = FLUSHED;
            return;
        }
        if (op != EmulatedDevice.SEND && memory == null) {
            statuses[slot] = LOCAL_PROTECTION_ERROR; // not registered here, or past its region
            failed = true;
            return;
        }
        statuses[slot] = PENDING;
        boolean carries = op != EmulatedDevice.READ && length > 0;
        request.clear();
        request.putInt(EmulatedDevice.REQUEST_HEADER - 4 + (carries ? length : 0)).put((byte) op).putLong(wrId).putLong(remoteAddress)
                .putInt(rkey).putInt(length).flip();
        outgoing[0] = request;
        outgoing[1] = !carries ? EMPTY : message != null ? message : sending.window(memory, offsets[slot], length);
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
            lost();
        } finally {
            outgoing[1] = null;
        }
    }

    private void lost() {
        failed = true;
        peerGone = true;
    }

    @Override
    public int poll() {
        int reapedNow = 0;
        try {
            while (reaped < posted) {
                int slot = (int) (reaped % DEPTH);
                if (statuses[slot] != PENDING || peerGone) { // decided here: a local error, or flushed
                    complete(slot, statuses[slot] != PENDING ? statuses[slot] : FLUSHED);
                    reapedNow++;
                    continue;
                }
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
                        } else if (ops[slot] == EmulatedDevice.READ && status == SUCCESS && bytes == lengths[slot]) {
                            payload = receiving.window(locals[slot], offsets[slot], bytes);
                        } else {
                            throw new IOException(peer + " sent " + bytes + " bytes with completion " + wrIds[slot]);
                        }
                    } else {
                        if (status != SUCCESS) {
                            failed = true; // the responder dropped the connection after it: what follows is flushed
                        } else if (ops[slot] == EmulatedDevice.SEND) {
                            answer = ByteBuffer.allocate(0); // an empty answer
                        }
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
                complete(slot, SUCCESS);
                reapedNow++;
            }
        } catch (IOException e) {
            lost();
            payload = null;
            return reapedNow + poll(); // flushes what is left
        }
        return reapedNow;
    }

    private void complete(int slot, int status) {
        locals[slot] = null;
        reaped++;
        if (ops[slot] != EmulatedDevice.SEND) {
            sink.completed(wrIds[slot], status);
        } else if (status != SUCCESS) {
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
        post(EmulatedDevice.SEND, -1, 0, 0, 0, 0, message.remaining(), message);
        while (reaped < target) {
            poll();
            if (System.nanoTime() - deadline > 0) {
                lost();
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
        lost();
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

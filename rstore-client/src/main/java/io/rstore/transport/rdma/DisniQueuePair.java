package io.rstore.transport.rdma;

import com.ibm.disni.RdmaEndpoint;
import com.ibm.disni.RdmaEndpointGroup;
import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvSge;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCReqNotify;
import io.rstore.ErrorCode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * A DiSNI reliable connection as a {@link QueuePair}: one stateful verb call per opcode,
 * built once and re-aimed per work request (wr id, local address and lkey, remote address
 * and rkey), and a stateful poll of the completion queue, whose statuses are the verbs'
 * own. The local memory is registered by the caller (LocalRegions). The RPC uses a
 * pre-posted receive buffer.
 */
final class DisniQueuePair implements QueuePair {
    private static final long SEND_ID = -1;
    private static final long RECV_ID = -2;
    /** What {@code received} holds while no answer arrived, and once its receive was flushed instead. */
    private static final int WAITING = -1;
    private static final int LOST = -2;
    private static final int MESSAGE = RdmaDevice.MAX_MESSAGE;

    /**
     * An endpoint with a registered send and receive buffer, its receive posted before the
     * connection is up: full-size on a client, {@link RdmaDevice#SMALL_MESSAGE} on a
     * listener's side until its handler asks for more ({@link #grow}). When the peer
     * disconnects, it disconnects too: DiSNI only marks the endpoint closed, leaving the
     * queue pair ready to send, so work in flight would wait for the retry timeout;
     * disconnecting moves the queue pair to the error state, which flushes it.
     */
    static final class Endpoint extends RdmaEndpoint implements AutoCloseable {
        ByteBuffer send;
        ByteBuffer receive;
        IbvMr sendMr;
        IbvMr receiveMr;
        SVCPostRecv postReceive;
        volatile Exception failure;
        /**
         * The peer disconnected: what DiSNI's {@code isClosed()} says, without its monitor,
         * which every post would otherwise take (a data-path cost that QEMU's emulation
         * multiplies: docs/measure/notebook.md).
         */
        volatile boolean disconnected;

        Endpoint(RdmaEndpointGroup<? extends RdmaEndpoint> group, RdmaCmId id, boolean serverSide) throws IOException {
            super(group, id, serverSide);
        }

        @Override
        protected synchronized void init() throws IOException {
            super.init();
            buffers(isServerSide() ? RdmaDevice.SMALL_MESSAGE : MESSAGE);
            postReceive.execute(); // before the peer can send
        }

        /**
         * Send and receive buffers for messages of {@code bytes}, registered, and the receive
         * work request that posts the latter. The receive buffer has one byte more: a
         * message that fills it is longer than allowed, whether or not the device reports a
         * length error (SoftRoCE let a longer SEND complete).
         */
        private void buffers(int bytes) throws IOException {
            send = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
            receive = ByteBuffer.allocateDirect(bytes + 1).order(ByteOrder.LITTLE_ENDIAN);
            sendMr = registerMemory(send).execute().free().getMr();
            receiveMr = registerMemory(receive).execute().free().getMr();
            IbvSge sge = new IbvSge();
            sge.setAddr(receiveMr.getAddr());
            sge.setLength(receiveMr.getLength());
            sge.setLkey(receiveMr.getLkey());
            LinkedList<IbvSge> sges = new LinkedList<>();
            sges.add(sge);
            IbvRecvWR wr = new IbvRecvWR();
            wr.setWr_id(RECV_ID);
            wr.setSg_list(sges);
            LinkedList<IbvRecvWR> wrs = new LinkedList<>();
            wrs.add(wr);
            postReceive = postRecv(wrs);
        }

        /**
         * A listener's side, between a request and the receive for the next: buffers of
         * {@code bytes} replace the small ones, the answer already written ({@code answered}
         * bytes) copied over. No work request uses the old ones then: the receive completed,
         * and the peer sent this request only after our last answer arrived.
         */
        void grow(int bytes, int answered) throws IOException {
            IbvMr oldSend = sendMr;
            IbvMr oldReceive = receiveMr;
            ByteBuffer answer = send.duplicate().position(0).limit(answered);
            SVCPostRecv oldPost = postReceive;
            buffers(bytes);
            send.put(answer);
            oldPost.free();
            deregisterMemory(oldSend);
            deregisterMemory(oldReceive);
        }

        /** The longest message its buffers take. */
        int messageBytes() {
            return send.capacity();
        }

        @Override
        public synchronized void dispatchCmEvent(RdmaCmEvent event) throws IOException {
            super.dispatchCmEvent(event);
            if (event.getEvent() == RdmaCmEvent.EventType.RDMA_CM_EVENT_DISCONNECTED.ordinal()) {
                disconnected = true;
                getIdPriv().disconnect(); // our queue pair to the error state: its work requests flush
            }
        }

        /**
         * Set first thing in {@link #close}: a responder then stops instead of taking the
         * monitor again. Java monitors are not fair: a responder that re-takes it after every
         * wait starved the closer (and the connection manager's events) for tens of seconds on
         * a single emulated CPU.
         */
        private volatile boolean closing;
        /** Held by a responder while it waits for a completion event outside the monitor; the queue is destroyed under it. */
        private final ReentrantLock waiting = new ReentrantLock();
        private boolean released; // its completion queue and channel are gone

        /** DiSNI's close leaves the completion queue and its channel behind: they go here, the queue first. */
        @Override
        public void close() throws IOException, InterruptedException {
            closing = true;
            synchronized (this) {
                boolean wasOpen = getQp() != null && getCqProvider() != null;
                super.close();
                waiting.lock();
                try {
                    if (wasOpen && !released) {
                        released = true;
                        IbvCQ cq = getCqProvider().getCQ();
                        cq.destroyCQ();
                        cq.getChannel().destroyCompChannel();
                    }
                } finally {
                    waiting.unlock();
                }
            }
        }

        /** True once close began: a responder must not touch the queue pair or its queue any more. */
        boolean closing() {
            return closing || isClosed();
        }

        /** Waits up to {@code ms} for a completion event, outside the monitor; true if one came (and was acknowledged). */
        boolean awaitCompletion(IbvCQ cq, int ms) throws IOException {
            waiting.lock();
            try {
                if (closing || released) { // not isClosed(): it takes the monitor, which a closer may hold while it waits for this lock
                    return false;
                }
                if (cq.getChannel().getCqEvent(cq, ms)) {
                    cq.ackEvents(1);
                    return true;
                }
                return false;
            } finally {
                waiting.unlock();
            }
        }

        void closeQuietly() {
            try {
                close();
            } catch (IOException | InterruptedException | RuntimeException ignored) {
                // closing anyway
            }
        }
    }

    private final Endpoint endpoint;
    private final CompletionSink sink;
    private final String peer;
    private final SVCPostSend read;
    private final SVCPostSend write;
    private final SVCPostSend send;
    private final IbvWC[] completions = new IbvWC[32];
    private final SVCPollCq poll;
    private int received = WAITING; // bytes of the answer that arrived; or WAITING, or LOST (its receive flushed)
    private boolean failed;

    private final Consumer<Endpoint> closer;

    /** {@code closer} closes the endpoint when the queue pair closes (its device serializes endpoint closes). */
    DisniQueuePair(Endpoint endpoint, CompletionSink sink, String peer, Consumer<Endpoint> closer) {
        this.closer = closer;
        this.endpoint = endpoint;
        this.sink = sink;
        this.peer = peer;
        try {
            read = endpoint.postSend(workRequest(IbvSendWR.IBV_WR_RDMA_READ, 0, 0, 0));
            write = endpoint.postSend(workRequest(IbvSendWR.IBV_WR_RDMA_WRITE, 0, 0, 0));
            send = endpoint.postSend(workRequest(IbvSendWR.IBV_WR_SEND, endpoint.sendMr.getAddr(), 0, endpoint.sendMr.getLkey()));
            for (int i = 0; i < completions.length; i++) {
                completions[i] = new IbvWC();
            }
            poll = endpoint.getCqProvider().getCQ().poll(completions, completions.length);
        } catch (IOException e) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot prepare work requests for " + peer + ": " + e.getMessage());
        }
    }

    private static LinkedList<IbvSendWR> workRequest(int opcode, long address, int length, int lkey) {
        IbvSge sge = new IbvSge();
        sge.setAddr(address);
        sge.setLength(length);
        sge.setLkey(lkey);
        LinkedList<IbvSge> sges = new LinkedList<>();
        sges.add(sge);
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(opcode);
        wr.setSend_flags(IbvSendWR.IBV_SEND_SIGNALED);
        wr.setSg_list(sges);
        LinkedList<IbvSendWR> wrs = new LinkedList<>();
        wrs.add(wr);
        return wrs;
    }

    @Override
    public int depth() {
        return DisniDevice.QUEUE_DEPTH - 2; // room for the RPC's SEND
    }

    @Override
    public boolean failed() {
        return failed || endpoint.disconnected;
    }

    @Override
    public void postRead(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length) {
        post(read, wrId, localAddress, lkey, remoteAddress, rkey, length);
    }

    @Override
    public void postWrite(long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length) {
        post(write, wrId, localAddress, lkey, remoteAddress, rkey, length);
    }

    private void post(SVCPostSend call, long wrId, long localAddress, int lkey, long remoteAddress, int rkey, int length) {
        try {
            SVCPostSend.SendWRMod wr = call.getWrMod(0);
            wr.setWr_id(wrId);
            SVCPostSend.SgeMod sge = wr.getSgeMod(0);
            sge.setAddr(localAddress);
            sge.setLength(length);
            sge.setLkey(lkey);
            wr.getRdmaMod().setRemote_addr(remoteAddress);
            wr.getRdmaMod().setRkey(rkey);
            call.execute();
        } catch (IOException | RuntimeException e) {
            // the queue pair took no work request (it is being destroyed): that one is flushed at once, and so is the queue pair
            failed = true;
            sink.completed(wrId, FLUSHED);
        }
    }

    @Override
    public int poll() {
        try {
            int n = poll.execute().getPolls();
            for (int i = 0; i < n; i++) {
                IbvWC wc = completions[i];
                long wrId = wc.getWr_id();
                int status = wc.getStatus();
                if (status != SUCCESS) {
                    failed = true; // the queue pair is in the error state now
                }
                if (wrId == RECV_ID) {
                    received = status == SUCCESS ? wc.getByte_len() : LOST;
                } else if (wrId != SEND_ID) {
                    sink.completed(wrId, status);
                }
            }
            return n;
        } catch (IOException e) {
            failed = true;
            return 0;
        }
    }

    @Override
    public ByteBuffer call(ByteBuffer request, long timeoutMs) {
        if (request.remaining() > MESSAGE) {
            throw ErrorCode.INVALID_ARGUMENT.exception("a message of " + request.remaining() + " bytes exceeds " + MESSAGE);
        }
        try {
            endpoint.send.clear();
            int length = request.remaining();
            endpoint.send.put(request.duplicate());
            received = WAITING;
            send.getWrMod(0).getSgeMod(0).setLength(length);
            send.getWrMod(0).setWr_id(SEND_ID);
            send.execute();
            long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
            while (received == WAITING) {
                if (poll() == 0) {
                    if (failed()) {
                        throw ErrorCode.SERVER_UNAVAILABLE.exception("lost the connection to " + peer);
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw ErrorCode.TIMED_OUT.exception(peer + " did not answer within " + timeoutMs + " ms");
                    }
                }
            }
            if (received == LOST) { // the peer dropped the connection (it refused the request): no answer, not an empty one
                throw ErrorCode.SERVER_UNAVAILABLE.exception("lost the connection to " + peer + " before it answered");
            }
            ByteBuffer answer = ByteBuffer.allocate(received).order(ByteOrder.LITTLE_ENDIAN);
            answer.put(endpoint.receive.duplicate().clear().limit(received)).flip();
            endpoint.postReceive.execute(); // ready for the next answer
            return answer;
        } catch (IOException e) {
            failed = true;
            throw ErrorCode.SERVER_UNAVAILABLE.exception("lost the connection to " + peer + ": " + e.getMessage());
        }
    }

    /**
     * How long a responder blocks for a completion before it looks whether its connection was
     * closed or its handshake's bound passed: 50 ms after a request, doubling while none
     * comes up to 1 s, so that thousands of idle queue pairs cost a wake-up a second each,
     * not twenty. A close wakes it sooner: the disconnect flushes the posted receive.
     */
    private static final int EVENT_WAIT_MS = 50;
    private static final int IDLE_WAIT_MS = 1_000;

    /**
     * The server's side of an accepted connection: answers each request that arrives, until
     * the connection ends. It sleeps on the completion channel between requests (a control
     * path: a resolve per chunk and client, the master's calls), so idle connections cost no
     * CPU. Polling, answering and posting happen under the endpoint's monitor, which its close
     * takes too; the wait happens outside it (see {@link Endpoint#awaitCompletion}). So the
     * completion queue is never used after it was destroyed.
     */
    static void respond(Endpoint endpoint, RdmaDevice.RequestHandler requests, QueuePairAdmission.Seat seat, long handshakeMs) {
        long authenticateBy = System.nanoTime() + handshakeMs * 1_000_000L;
        try (requests) {
            if (!seat.admit(requests)) {
                return; // closed for a newer one already, or no place for one more
            }
            IbvWC[] wcs = {new IbvWC(), new IbvWC(), new IbvWC(), new IbvWC()};
            IbvCQ cq = endpoint.getCqProvider().getCQ();
            SVCPollCq poll = cq.poll(wcs, wcs.length);
            SVCReqNotify arm = cq.reqNotification(false);
            SVCPostSend send = endpoint.postSend(workRequest(IbvSendWR.IBV_WR_SEND, endpoint.sendMr.getAddr(), 0, endpoint.sendMr.getLkey()));
            boolean armed = false;
            int waitMs = EVENT_WAIT_MS;
            while (true) {
                synchronized (endpoint) {
                    if (endpoint.closing()) {
                        return;
                    }
                    int n = poll.execute().getPolls();
                    for (int i = 0; i < n; i++) {
                        if (wcs[i].getWr_id() != RECV_ID) {
                            continue; // our answer's SEND completed
                        }
                        if (wcs[i].getStatus() != 0) {
                            return; // the connection is in error: the client went away
                        }
                        if (wcs[i].getByte_len() > endpoint.messageBytes()) {
                            return; // longer than its buffers allow: the connection ends, as on a NIC's length error
                        }
                        ByteBuffer request = endpoint.receive.duplicate().clear().limit(wcs[i].getByte_len()).order(ByteOrder.LITTLE_ENDIAN);
                        ByteBuffer response = endpoint.send.clear();
                        requests.handle(request, response);
                        if (!seat.admit(requests)) {
                            return; // authenticated, but the listener serves as many as it may
                        }
                        int answered = response.position();
                        int wanted = Math.min(requests.messageBytes(), RdmaDevice.MAX_MESSAGE);
                        if (wanted > endpoint.messageBytes()) { // admitted: full-size buffers before the next request
                            endpoint.grow(wanted, answered);
                            send.getWrMod(0).getSgeMod(0).setAddr(endpoint.sendMr.getAddr());
                            send.getWrMod(0).getSgeMod(0).setLkey(endpoint.sendMr.getLkey());
                        }
                        endpoint.postReceive.execute(); // before answering, so the next request has somewhere to land
                        send.getWrMod(0).getSgeMod(0).setLength(answered);
                        send.getWrMod(0).setWr_id(SEND_ID);
                        send.execute();
                    }
                    if (n > 0) {
                        waitMs = EVENT_WAIT_MS;
                        continue;
                    }
                    if (!armed) { // ask for an event, then poll once more: a completion may have come before the request
                        arm.execute();
                        armed = true;
                        continue;
                    }
                }
                if (!requests.authenticated() && System.nanoTime() - authenticateBy > 0) {
                    return; // the handshake's bound passed: the connection ends
                }
                if (endpoint.awaitCompletion(cq, waitMs)) { // outside the monitor: close and the CM's events must get it
                    armed = false;
                } else {
                    waitMs = Math.min(2 * waitMs, IDLE_WAIT_MS);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the connection ended
        }
    }

    @Override
    public void close() {
        failed = true;
        closer.accept(endpoint);
    }
}

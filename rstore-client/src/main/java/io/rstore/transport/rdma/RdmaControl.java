package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.wire.FrameHandler;
import io.rstore.protocol.wire.FrameTransport;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The master protocol over RDMA SEND/RECV: each request frame is one SEND, its answer
 * frame the SEND back into the client's pre-posted receive buffer. The frames are those
 * of docs/protocol.md, unchanged, and so is the handshake: the client's first message is
 * empty and is answered with the challenge; with a cluster secret, the proof comes next,
 * and nothing else is served until it was right. Until then the queue pair has the
 * listener's small buffers; once admitted it takes full-size ones from the listener's
 * {@link MessageBudget}, or is refused OVERLOADED when the budget is spent.
 */
public final class RdmaControl {
    private RdmaControl() {
    }

    /**
     * The master's side of one queue pair: the handshake for {@code secret} (empty: none),
     * then frames to {@code frames}, closed (dropping the client's sessions) when it ends.
     * Admitted connections' message buffers come out of {@code budget}.
     */
    public static RdmaDevice.RequestHandler serving(FrameHandler frames, String secret, MessageBudget budget) {
        byte[] nonce = Handshake.nonce();
        return new RdmaDevice.RequestHandler() {
            private boolean challenged;
            private volatile boolean admitted; // read by the listener's handshake watchdog too
            private boolean granted; // holds full-size buffers from the budget
            private boolean refused; // the budget was spent when it was admitted

            @Override
            public void handle(ByteBuffer request, ByteBuffer response) {
                if (refused) {
                    response.put(refusal());
                    return;
                }
                if (!challenged) { // the hello, whatever it holds
                    challenged = true;
                    response.put(secret.isEmpty() ? admit(Handshake.challenge(false, nonce)) : Handshake.challenge(true, nonce));
                    return;
                }
                if (!admitted) {
                    response.put(Handshake.verify(request.duplicate(), secret, nonce) ? admit(Handshake.verdict(true)) : Handshake.verdict(false));
                    return;
                }
                ByteBuffer frame = ByteBuffer.allocate(request.remaining()).order(ByteOrder.LITTLE_ENDIAN).put(request).flip();
                ByteBuffer answer = frames.handle(frame);
                if (answer.remaining() > response.remaining()) {
                    answer = Frames.errorFrame(frame.getShort(Frames.TYPE_AT), frame.getLong(Frames.CORRELATION_AT), ErrorCode.UNSUPPORTED.exception("the answer ("
                            + answer.remaining() + " bytes) exceeds an RDMA message (" + RdmaDevice.MAX_MESSAGE + "); connect over tcp"));
                }
                response.put(answer);
            }

            /** {@code welcome} if the budget has this connection's buffers, else the refusal that replaces it. */
            private ByteBuffer admit(ByteBuffer welcome) {
                if (!budget.tryTake()) {
                    refused = true;
                    return refusal();
                }
                admitted = true;
                granted = true;
                return welcome;
            }

            private ByteBuffer refusal() {
                return Handshake.refusal("its RDMA message buffers for " + budget.connections() + " connections are in use ("
                        + MessageBudget.SETTING + " = " + budget.totalBytes() + " bytes); connect over tcp, or raise it on the master");
            }

            @Override
            public int messageBytes() {
                return granted ? RdmaDevice.MAX_MESSAGE : RdmaDevice.SMALL_MESSAGE;
            }

            /** Admitted, and holding its buffers: a refused connection is closed at the handshake's bound too. */
            @Override
            public boolean authenticated() {
                return admitted;
            }

            @Override
            public void close() {
                if (granted) {
                    granted = false;
                    budget.giveBack();
                }
                frames.close();
            }
        };
    }

    /** The client's side: a queue pair to the master's listener, past the handshake, that carries one call at a time. */
    static FrameTransport connection(QueuePair qp, String master, long timeoutMs, String secret) {
        byte[] nonce = Handshake.readChallenge(qp.call(ByteBuffer.allocate(0), timeoutMs), master);
        if (nonce != null) {
            if (secret == null || secret.isEmpty()) {
                throw ErrorCode.UNAUTHORIZED.exception(master + " requires a cluster secret and none was given; set RSTORE_SECRET"
                        + " (or RStoreSettings.withClusterSecret)");
            }
            Handshake.checkVerdict(qp.call(Handshake.proofFrame(secret, nonce), timeoutMs), master);
        }
        return new FrameTransport() {
            @Override
            public synchronized ByteBuffer call(ByteBuffer request) {
                try {
                    return qp.call(request, timeoutMs);
                } catch (RStoreException e) {
                    if (e.code() == ErrorCode.SERVER_UNAVAILABLE || e.code() == ErrorCode.TIMED_OUT) {
                        throw ErrorCode.MASTER_UNAVAILABLE.exception("lost " + master + ": " + e.detail());
                    }
                    throw e;
                }
            }

            @Override
            public void close() {
                qp.close();
            }
        };
    }
}

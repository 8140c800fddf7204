package io.rstore.transport.rdma;

import io.rstore.ErrorCode;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * The verbs the rdma transport needs, and its seam: {@link DisniDevice} drives a real RDMA
 * card through DiSNI; {@link EmulatedDevice} is a software device whose one-sided
 * operations go over TCP to the peer's device, served there without the peer program
 * (like SoftiWARP, in user space), so the transport runs in CI without a card.
 */
public interface RdmaDevice extends AutoCloseable {

    /** {@code disni} or {@code emulated}: the scheme of the addresses its listeners advertise. */
    String kind();

    /**
     * Registers memory: its lkey lets this side's work requests read and write it, its rkey
     * lets peers' reads and writes reach it, until {@link #deregister}. Read-only memory
     * is registered for local reads alone: it can be written out, nothing can land in it.
     * The memory must be native (a heap array has no address a device can use).
     */
    MemoryRegion register(MemorySegment memory);

    /** The most one region may hold: DiSNI passes a region's length as an int. Larger memory is registered in pieces of {@link #PIECE}. */
    long MAX_REGION = Integer.MAX_VALUE;

    /** What {@link LocalRegions} registers larger memory in, and the most one work request moves. */
    long PIECE = 1L << 30;

    /** Refuses what no device here could register: heap memory, and regions past {@link #MAX_REGION}. */
    static void checkRegisterable(MemorySegment memory) {
        if (!memory.isNative()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("an RDMA device registers native memory only, not a heap array");
        }
        if (memory.byteSize() > MAX_REGION) {
            throw ErrorCode.INVALID_ARGUMENT.exception("an RDMA device here registers at most 2 GiB per region (DiSNI takes an int"
                    + " length), asked for " + memory.byteSize() + " bytes: register larger memory in pieces, and use chunks of 1 GiB or less");
        }
    }

    void deregister(MemoryRegion region);

    /**
     * Accepts queue pairs at {@code at} within the {@link ListenerLimits#DEFAULT} limits; the
     * SENDs that arrive on each are answered by a handler of its own from {@code handlers}
     * (RPC over SEND/RECV), closed when it ends.
     */
    default Listener listen(InetSocketAddress at, Supplier<RequestHandler> handlers) {
        return listen(at, handlers, ListenerLimits.DEFAULT);
    }

    /** As {@link #listen(InetSocketAddress, Supplier)}, admitting queue pairs within {@code limits}. */
    Listener listen(InetSocketAddress at, Supplier<RequestHandler> handlers, ListenerLimits limits);

    /**
     * What a listener admits ({@link QueuePairAdmission}): at most {@code maxConnections}
     * queue pairs whose handler authenticated them; apart from those, at most
     * {@code maxPending} still in their handshake ({@code maxPendingPerSource} from one
     * source address), each closed when its handler has not authenticated it
     * {@code handshakeMs} after it connected. The master's listener takes the daemon's
     * rstore.net limits, which bound its tcp listener the same way.
     */
    record ListenerLimits(int maxConnections, int maxPending, int maxPendingPerSource, long handshakeMs) {
        public static final ListenerLimits DEFAULT = new ListenerLimits(MAX_CONNECTIONS, 1024, 256, HANDSHAKE_MS);

        public ListenerLimits {
            if (maxConnections < 1 || maxPending < 1 || maxPendingPerSource < 1 || handshakeMs < 1) {
                throw new IllegalArgumentException("a listener's limits must be positive: " + maxConnections + " queue pairs, " + maxPending
                        + " pending, " + maxPendingPerSource + " pending from one source, " + handshakeMs + " ms handshake");
            }
        }
    }

    /** A reliable connection to a listener, bounded by {@code timeoutMs}; its completions go to {@code sink}. */
    QueuePair connect(InetSocketAddress peer, long timeoutMs, QueuePair.CompletionSink sink);

    @Override
    void close();

    /** A listening endpoint. */
    interface Listener extends AutoCloseable {
        /** The port it listens on: the one the system chose when asked for port 0. */
        int port();

        @Override
        void close();
    }

    /**
     * How queue pairs connect. {@code retryCount} and {@code rnrRetryCount} (0-7) are how
     * often a request is sent again when unanswered or when the peer had no receive posted.
     * {@code initiatorDepth} and {@code responderResources} (outstanding RDMA reads each way)
     * must stay 0, meaning "as many as both devices allow": DiSNI 2.1 cannot carry them
     * (its RdmaConnParam throws "Operation currently not supported"), and every device
     * refuses them the same way.
     */
    record Connections(int retryCount, int rnrRetryCount, int initiatorDepth, int responderResources) {
        /** Retries on: a SEND that beats its peer's RECV is sent again instead of failing. */
        public static final Connections DEFAULT = new Connections(7, 7, 0, 0);

        /** UNSUPPORTED, in DiSNI's words, for what DiSNI 2.1 cannot set; INVALID_ARGUMENT for counts out of range. */
        public Connections {
            if (retryCount < 0 || retryCount > 7 || rnrRetryCount < 0 || rnrRetryCount > 7) {
                throw ErrorCode.INVALID_ARGUMENT.exception("RDMA retry counts run from 0 to 7, were " + retryCount + " and " + rnrRetryCount);
            }
            if (initiatorDepth != 0 || responderResources != 0) {
                throw ErrorCode.UNSUPPORTED.exception("cannot set the initiator depth or responder resources of an RDMA connection"
                        + " (DiSNI 2.1: Operation currently not supported); leave them 0 and the native library asks for the devices' maximum");
            }
        }
    }

    /** The largest request or response message, in bytes. */
    int MAX_MESSAGE = 2 << 20;

    /**
     * The message buffers a listener gives a queue pair it accepts, in bytes: enough for a
     * handshake's frames or a chunk resolve. They grow to the handler's
     * {@link RequestHandler#messageBytes} once it asks for more (after authentication), so a
     * connection that never authenticates holds this much, not two {@link #MAX_MESSAGE}s.
     */
    int SMALL_MESSAGE = 4096;

    /**
     * How long a listener keeps a queue pair whose handler has not authenticated it
     * ({@link RequestHandler#authenticated}), from its connection on, unless its limits say
     * otherwise: then it closes it, so silent or slow peers cannot hold queue pairs, threads
     * and buffers (the tcp handshake's default bound, rstore.net.handshake-timeout).
     */
    long HANDSHAKE_MS = 5_000;

    /** Authenticated queue pairs a listener serves at once unless its limits say otherwise; one more is closed, as a NIC out of queue pairs refuses it. */
    int MAX_CONNECTIONS = 4096;

    /**
     * Answers the request messages (SENDs) of one queue pair with responses (the peer's
     * RECVs). A queue pair's first request must fit in {@link #SMALL_MESSAGE}; a larger SEND
     * than its buffers hold breaks the queue pair, as a NIC's receive length error does.
     */
    @FunctionalInterface
    interface RequestHandler extends AutoCloseable {
        /** Reads {@code request} and fills {@code response} (at most {@link #messageBytes} bytes; flipped by the caller). */
        void handle(ByteBuffer request, ByteBuffer response);

        /**
         * The largest request or response this handler takes from now on (at most
         * {@link #MAX_MESSAGE}): the listener grows the queue pair's buffers to it after a
         * request, before the next can arrive.
         */
        default int messageBytes() {
            return MAX_MESSAGE;
        }

        /**
         * Whether the peer has passed what this handler asks before it serves (the master's
         * handshake); a queue pair still unauthenticated {@link #HANDSHAKE_MS} after it
         * connected is closed. Handlers without a handshake are authenticated from the start.
         */
        default boolean authenticated() {
            return true;
        }

        /** The queue pair ended (its peer closed, or died). */
        @Override
        default void close() {
        }
    }
}

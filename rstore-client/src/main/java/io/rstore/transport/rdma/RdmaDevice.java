package io.rstore.transport.rdma;

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

    /** Registers memory for remote reads and writes; its rkey grants them until {@link #deregister}. */
    MemoryRegion register(MemorySegment memory);

    void deregister(MemoryRegion region);

    /**
     * Accepts queue pairs at {@code at}; the SENDs that arrive on each are answered by a
     * handler of its own from {@code handlers} (RPC over SEND/RECV), closed when it ends.
     */
    Listener listen(InetSocketAddress at, Supplier<RequestHandler> handlers);

    /** A reliable connection to a listener, bounded by {@code timeoutMs}; its completions go to {@code sink}. */
    QueuePair connect(InetSocketAddress peer, long timeoutMs, QueuePair.CompletionSink sink);

    @Override
    void close();

    /** A listening endpoint. */
    interface Listener extends AutoCloseable {
        int port();

        @Override
        void close();
    }

    /** The largest request or response message, in bytes. */
    int MAX_MESSAGE = 2 << 20;

    /** Answers the request messages (SENDs) of one queue pair with responses (the peer's RECVs). */
    @FunctionalInterface
    interface RequestHandler extends AutoCloseable {
        /** Reads {@code request} and fills {@code response} (at most MAX_MESSAGE bytes; flipped by the caller). */
        void handle(ByteBuffer request, ByteBuffer response);

        /** The queue pair ended (its peer closed, or died). */
        @Override
        default void close() {
        }
    }
}

package io.rstore.protocol.wire;

import java.nio.ByteBuffer;

/** Carries one request frame to the master and brings back its response frame. */
public interface FrameTransport extends AutoCloseable {

    /** Sends a whole frame and returns the whole answer. Control path: may block, bounded by the transport. */
    ByteBuffer call(ByteBuffer request);

    @Override
    default void close() {
    }
}

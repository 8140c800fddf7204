package io.rstore.protocol.wire;

import java.nio.ByteBuffer;

/** Answers the request frames of one connection; closed when the connection ends, to drop what the connection held. */
public interface FrameHandler extends AutoCloseable {

    /** Never throws: every outcome, a malformed frame included, is an answer frame (see {@link Frames#isHangUp}). */
    ByteBuffer handle(ByteBuffer request);

    @Override
    default void close() {
    }
}

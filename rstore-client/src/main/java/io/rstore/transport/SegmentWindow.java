package io.rstore.transport;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A reusable NIO window onto memory, for the socket paths: a channel needs a ByteBuffer,
 * and a fresh slice and view per operation would allocate on the data path. The view of
 * the last segment seen is kept and re-windowed; a segment over 2 GiB (which no
 * ByteBuffer spans) gets a fresh slice. One owner at a time: not thread-safe.
 */
public final class SegmentWindow {
    private MemorySegment of;
    private ByteBuffer view;

    /** A ByteBuffer over bytes {@code [offset, offset + length)} of {@code memory}, valid until the next call. */
    public ByteBuffer window(MemorySegment memory, long offset, long length) {
        if (memory.byteSize() > Integer.MAX_VALUE) {
            return memory.asSlice(offset, length).asByteBuffer();
        }
        if (memory != of) {
            of = memory;
            view = memory.asByteBuffer();
        }
        view.clear();
        return view.limit((int) (offset + length)).position((int) offset);
    }
}

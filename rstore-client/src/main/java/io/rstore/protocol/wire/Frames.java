package io.rstore.protocol.wire;

import java.nio.ByteBuffer;

/**
 * The frame header every message starts with (docs/protocol.md):
 *
 * <pre>
 *  0  length (int32: bytes after this field)
 *  4  magic 'R' 'S'     6  version (1)     7  kind (1 request, 2 response, 3 error,
 *                                              4 data request, 5 data response)
 *  8  type (int16: the call)               10 correlation id (int64)
 * 18  body, fields in the order the spec lists them
 * </pre>
 * All integers little-endian. Frames larger than {@link #MAX_FRAME} are refused.
 */
public final class Frames {
    public static final int HEADER = 18;
    public static final int MAX_FRAME = 16 << 20;
    public static final int MAGIC = ('R' << 8) | 'S';
    static final int VERSION = 1;
    static final int REQUEST = 1;
    static final int RESPONSE = 2;
    static final int ERROR = 3;
    public static final int DATA_REQUEST = 4;
    public static final int DATA_RESPONSE = 5;
    /** Data frame types: one-sided operations. */
    public static final int READ = 1;
    public static final int WRITE = 2;
    /** Bytes of a data request after the header: server, chunk, key (i32 each), offset, length (i64 each). */
    public static final int DATA_REQUEST_BODY = 28;
    /** Bytes of a data response after the header: status (i32). */
    public static final int DATA_RESPONSE_BODY = 4;

    private Frames() {
    }

    /** Starts a frame; {@link #finish} fills in the length. */
    public static void writeHeader(ByteBuffer out, int length, int kind, int type, long correlation) {
        out.order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(length).putShort((short) MAGIC).put((byte) VERSION).put((byte) kind)
                .putShort((short) type).putLong(correlation);
    }

    static WireBuffer start(int kind, int type, long correlation) {
        WireBuffer out = WireBuffer.forWriting(256);
        out.putInt(0).putShort(MAGIC).putByte(VERSION).putByte(kind).putShort(type).putLong(correlation);
        return out;
    }

    static ByteBuffer finish(WireBuffer out) {
        ByteBuffer frame = out.buffer();
        frame.putInt(0, frame.position() - 4);
        frame.flip();
        return frame;
    }

    /** A parsed header; the reader is left at the body. */
    record Header(int kind, int type, long correlation, WireBuffer body) {
    }

    /** Checks a whole frame (length included) and reads its header. */
    static Header read(ByteBuffer frame) {
        WireBuffer in = new WireBuffer(frame.duplicate());
        if (frame.remaining() < HEADER) {
            throw WireBuffer.invalid("a frame of " + frame.remaining() + " bytes is shorter than the " + HEADER + "-byte header");
        }
        int length = in.getInt();
        if (length != frame.remaining() - 4 || length > MAX_FRAME) {
            throw WireBuffer.invalid("the frame says " + length + " bytes follow, " + (frame.remaining() - 4) + " do (at most " + MAX_FRAME + ")");
        }
        int magic = in.getShort() & 0xFFFF;
        if (magic != MAGIC) {
            throw WireBuffer.invalid("bad magic 0x" + Integer.toHexString(magic) + "; not an RStore frame");
        }
        int version = in.getByte();
        if (version != VERSION) {
            throw WireBuffer.invalid("protocol version " + version + ", this side speaks " + VERSION);
        }
        int kind = in.getByte();
        if (kind < REQUEST || kind > DATA_RESPONSE) {
            throw WireBuffer.invalid("unknown frame kind " + kind);
        }
        int type = in.getShort();
        long correlation = in.getLong();
        return new Header(kind, type, correlation, in);
    }
}

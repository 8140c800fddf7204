package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
    // each field's offset follows from the one before and its size, as drawn above
    public static final int LENGTH_AT = 0;
    public static final int MAGIC_AT = LENGTH_AT + Integer.BYTES;
    public static final int VERSION_AT = MAGIC_AT + Short.BYTES;
    public static final int KIND_AT = VERSION_AT + Byte.BYTES;
    public static final int TYPE_AT = KIND_AT + Byte.BYTES;
    public static final int CORRELATION_AT = TYPE_AT + Short.BYTES;
    public static final int HEADER = CORRELATION_AT + Long.BYTES;
    public static final int MAX_FRAME = 16 << 20;
    public static final int MAGIC = ('R' << 8) | 'S';
    public static final int VERSION = 1;
    static final int REQUEST = 1;
    public static final int RESPONSE = 2;
    public static final int ERROR = 3;
    public static final int DATA_REQUEST = 4;
    public static final int DATA_RESPONSE = 5;
    /** Data frame types: one-sided operations. */
    public static final int READ = 1;
    public static final int WRITE = 2;
    /** Bytes of a data request after the header: server, chunk (i32 each), key, offset, length (i64 each). */
    public static final int DATA_REQUEST_BODY = 32;
    /** Bytes of a data response after the header: status (i32). */
    public static final int DATA_RESPONSE_BODY = 4;

    private Frames() {
    }

    /** Starts a frame; {@link #finish} fills in the length. */
    public static void writeHeader(ByteBuffer out, int length, int kind, int type, long correlation) {
        out.order(ByteOrder.LITTLE_ENDIAN).putInt(length).putShort((short) MAGIC).put((byte) VERSION).put((byte) kind)
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

    /** Decodes a request's body into the call and encodes its result into {@code out}; throws RStoreException to answer with an error. */
    @FunctionalInterface
    interface Dispatcher {
        void dispatch(int type, WireBuffer in, WireBuffer out);
    }

    /**
     * The server side of a call protocol whose types are {@code first..last}: never throws;
     * every outcome, including a malformed frame, is an answer frame. A malformed frame gets
     * INVALID_FRAME (correlation 0 when even the header is unreadable), after which the
     * caller should close the connection.
     */
    static ByteBuffer serve(ByteBuffer request, int first, int last, Dispatcher dispatcher) {
        Header header;
        try {
            header = read(request);
            if (header.kind() != REQUEST) {
                throw WireBuffer.invalid("expected a request, not frame kind " + header.kind());
            }
            if (header.type() < first || header.type() > last) {
                throw WireBuffer.invalid("unknown call " + header.type() + " (this port takes calls " + first + ".." + last + ")");
            }
        } catch (RStoreException e) {
            return error(0, 0, e);
        }
        try {
            WireBuffer out = start(RESPONSE, header.type(), header.correlation());
            dispatcher.dispatch(header.type(), header.body(), out);
            return finish(out);
        } catch (RStoreException e) {
            return error(header.type(), header.correlation(), e);
        } catch (RuntimeException e) {
            return error(header.type(), header.correlation(),
                    ErrorCode.UNKNOWN.exception(e.getClass().getSimpleName() + ": " + e.getMessage()));
        }
    }

    /** An error frame: the code and the message (cut at 4000 characters). */
    static ByteBuffer error(int type, long correlation, RStoreException e) {
        WireBuffer out = start(ERROR, type, correlation);
        String m = e.detail() == null ? "" : e.detail();
        out.putInt(e.code().code()).putString(m.length() > 4000 ? m.substring(0, 4000) + "..." : m);
        return finish(out);
    }

    /** The error frame answering call {@code type} #{@code correlation} with {@code e}. */
    public static ByteBuffer errorFrame(int type, long correlation, RStoreException e) {
        return error(type, correlation, e);
    }

    /** The error frame a connection gets for bytes that are no frame at all; the connection is then closed. */
    public static ByteBuffer invalidFrameError(String what) {
        return error(0, 0, ErrorCode.INVALID_FRAME.exception(what));
    }

    /** Whether {@code answer} is the error frame sent before hanging up on an unreadable frame. */
    public static boolean isHangUp(ByteBuffer answer) {
        return answer.get(KIND_AT) == ERROR && answer.getShort(TYPE_AT) == 0;
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

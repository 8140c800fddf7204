package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes the wire's primitive types (docs/protocol.md): little-endian integers,
 * strings as a 4-byte length and UTF-8 bytes. Every read is checked: a short or
 * nonsensical frame is an INVALID_FRAME error, never an exception of another kind.
 */
final class WireBuffer {
    static final int MAX_STRING = 1 << 16;
    static final int MAX_LIST = 1 << 20;

    private ByteBuffer buffer;

    WireBuffer(ByteBuffer buffer) {
        this.buffer = buffer.order(ByteOrder.LITTLE_ENDIAN);
    }

    static WireBuffer forWriting(int capacity) {
        return new WireBuffer(ByteBuffer.allocate(capacity));
    }

    ByteBuffer buffer() {
        return buffer;
    }

    private void room(int bytes) {
        if (buffer.remaining() < bytes) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes)).order(ByteOrder.LITTLE_ENDIAN);
            buffer.flip();
            bigger.put(buffer);
            buffer = bigger;
        }
    }

    WireBuffer putByte(int v) {
        room(1);
        buffer.put((byte) v);
        return this;
    }

    WireBuffer putShort(int v) {
        room(2);
        buffer.putShort((short) v);
        return this;
    }

    WireBuffer putInt(int v) {
        room(4);
        buffer.putInt(v);
        return this;
    }

    WireBuffer putLong(long v) {
        room(8);
        buffer.putLong(v);
        return this;
    }

    WireBuffer putBoolean(boolean v) {
        return putByte(v ? 1 : 0);
    }

    WireBuffer putString(String v) {
        byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING) {
            throw ErrorCode.INVALID_ARGUMENT.exception("a string of " + bytes.length + " bytes is too long for the wire (at most " + MAX_STRING + ")");
        }
        putInt(bytes.length);
        room(bytes.length);
        buffer.put(bytes);
        return this;
    }

    int getByte() {
        try {
            return buffer.get();
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    int getShort() {
        try {
            return buffer.getShort();
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    int getInt() {
        try {
            return buffer.getInt();
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    long getLong() {
        try {
            return buffer.getLong();
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    boolean getBoolean() {
        int b = getByte();
        if (b != 0 && b != 1) {
            throw invalid("a boolean must be 0 or 1, was " + b);
        }
        return b == 1;
    }

    String getString() {
        int length = getInt();
        if (length < 0 || length > MAX_STRING || length > buffer.remaining()) {
            throw invalid("a string of " + length + " bytes does not fit the frame");
        }
        byte[] bytes = new byte[length];
        buffer.get(bytes);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw invalid("a string is not valid UTF-8");
        }
    }

    /** A list length, checked against what the rest of the frame can hold. */
    int getCount(int bytesPerItem) {
        int count = getInt();
        if (count < 0 || count > MAX_LIST || (long) count * bytesPerItem > buffer.remaining()) {
            throw invalid("a list of " + count + " items does not fit the frame");
        }
        return count;
    }

    void expectEnd() {
        if (buffer.hasRemaining()) {
            throw invalid(buffer.remaining() + " bytes left over after the message");
        }
    }

    static RStoreException truncated() {
        return invalid("the frame ends inside a field");
    }

    static RStoreException invalid(String why) {
        return ErrorCode.INVALID_FRAME.exception(why);
    }
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A mailbox container: the messages from partition i to partition j for one superstep
 * parity, a segment of its own. Superstep k reads the (k mod 2) containers of its inbox
 * column and writes the ((k+1) mod 2) containers of its outbox row, so a superstep's
 * writes never touch what the same superstep reads. A sender whose container is full
 * allocates one twice the size and names it in its directory cell; the receivers find it
 * there in the next superstep, when they read that parity.
 *
 * <pre>
 *  container: | count (long) | 56 pad | message 0 | message 1 | ...
 *  message:   | target (int, internal id) | the message record |   packed
 * </pre>
 */
public final class MailboxLayout {
    public static final long HEADER = 64;
    public static final long TARGET = 4;

    private MailboxLayout() {
    }

    /** Bytes of one message with a record of {@code recordBytes}. */
    public static long messageBytes(int recordBytes) {
        return TARGET + recordBytes;
    }

    public static long containerBytes(long capacity, int recordBytes) {
        return (HEADER + Math.max(capacity, 1) * messageBytes(recordBytes) + 63) & -64L;
    }

    public static long count(MemorySegment container) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    public static void setCount(MemorySegment container, long count) {
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, count);
    }

    public static long messageOffset(long i, int recordBytes) {
        return HEADER + i * messageBytes(recordBytes);
    }
}

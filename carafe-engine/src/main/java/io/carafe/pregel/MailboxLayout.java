package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One cell of the P×P mailbox grid: the segment from partition i to partition j, with an
 * even and an odd container. Superstep k reads the (k mod 2) containers of its inbox
 * column and writes the ((k+1) mod 2) containers of its outbox row, so a superstep's
 * writes never touch what the same superstep reads.
 *
 * <pre>
 *  segment:   | even container              | odd container               |
 *  container: | count (long) | 56 pad | message 0 | message 1 | ...        |
 *  message:   | target (int, internal id) | value (double) |   12 bytes, packed
 * </pre>
 * A container holds {@code capacity} messages: the edges from i into j (one message per
 * edge per superstep), fewer with a combiner (at most one per target vertex).
 */
public final class MailboxLayout {
    public static final long HEADER = 64;
    public static final long MESSAGE = 12;
    private static final long VALUE = 4;

    private MailboxLayout() {
    }

    public static long containerBytes(long capacity) {
        return (HEADER + capacity * MESSAGE + 63) & -64L;
    }

    public static long segmentBytes(long capacity) {
        return 2 * containerBytes(capacity);
    }

    /** Offset of the container for a superstep's parity within the segment. */
    public static long container(long capacity, long superstep) {
        return (superstep & 1) * containerBytes(capacity);
    }

    public static long count(MemorySegment container) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    public static void setCount(MemorySegment container, long count) {
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, count);
    }

    public static long messageOffset(long i) {
        return HEADER + i * MESSAGE;
    }

    public static int target(MemorySegment container, long i) {
        return container.get(ValueLayout.JAVA_INT_UNALIGNED, messageOffset(i));
    }

    public static double value(MemorySegment container, long i) {
        return container.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, messageOffset(i) + VALUE);
    }

    public static void put(MemorySegment container, long i, int target, double value) {
        long at = messageOffset(i);
        container.set(ValueLayout.JAVA_INT_UNALIGNED, at, target);
        container.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + VALUE, value);
    }
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A partition's outbox when the job gathers (see {@link Messaging#GATHER}): one value per
 * sending slot instead of one message per edge. Every partition reads every other's, so
 * there is one such segment per partition (each cell of its mailbox-grid row names it).
 * Like a mailbox cell it has an even and an odd container: superstep k reads the (k mod 2)
 * containers and writes the ((k+1) mod 2) one.
 *
 * <pre>
 *  segment:   | even container                | odd container                 |
 *  container: | slots (long) | senders (long) | 48 pad | values | sent bits |
 *  values:    double per slot (the combiner's identity for a slot that sent nothing)
 *  sent bits: one per slot, (slots + 63) / 64 longs; read only when senders < slots
 * </pre>
 * Slots are the partition's vertices with out-edges, heaviest first (see {@link Gather}).
 */
public final class BroadcastLayout {
    public static final long HEADER = 64;
    private static final long SLOTS = 0;
    private static final long SENDERS = 8;

    private BroadcastLayout() {
    }

    public static long words(long slots) {
        return (slots + 63) >>> 6;
    }

    public static long containerBytes(long slots) {
        return HEADER + 8 * slots + 8 * words(slots);
    }

    public static long segmentBytes(long slots) {
        return 2 * containerBytes(slots);
    }

    /** Offset of the container for a superstep's parity within the segment. */
    public static long container(long slots, long superstep) {
        return (superstep & 1) * containerBytes(slots);
    }

    /** Offset of the values within a container. */
    public static long values() {
        return HEADER;
    }

    /** Offset of the sent bits within a container. */
    public static long sentBits(long slots) {
        return HEADER + 8 * slots;
    }

    public static long slots(MemorySegment container) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, SLOTS);
    }

    public static long senders(MemorySegment container) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, SENDERS);
    }

    public static void setHeader(MemorySegment container, long slots, long senders) {
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, SLOTS, slots);
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, SENDERS, senders);
    }

    public static void setValue(MemorySegment container, long slot, double value) {
        container.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, HEADER + 8 * slot, value);
    }
}

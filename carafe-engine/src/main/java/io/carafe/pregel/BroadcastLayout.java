package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A partition's outbox when the job gathers or is hybrid (see {@link Messaging#GATHER}): one
 * value per sending slot instead of one message per edge. Every partition reads every other's, so
 * there is one such segment per partition (named in the job directory's broadcast table).
 * Like a mailbox cell it has an even and an odd container: superstep k reads the (k mod 2)
 * containers and writes the ((k+1) mod 2) one.
 *
 * <pre>
 *  segment:   | even container                | odd container                 |
 *  container: | slots (long) | senders (long) | first (long) | 40 pad | values | sent bits |
 *  values:    8 bytes per slot, a double or a long; a slot whose sent bit is clear holds whatever it held before
 *  sent bits: one per slot, (slots + 63) / 64 longs; read only when {@code 0 < senders < slots} (all set when {@code senders = slots})
 *  senders:   0 when the partition sent nothing, or pushed this superstep's messages
 *             instead (hybrid): then receivers read the header alone
 *  first:     the value its first sender sent, when the program sends one value each
 *             superstep (receivers check that every partition sent the same one); else 0.
 *             Such a partition writes out and receivers read the header and sent bits alone
 * </pre>
 * Slots are the partition's vertices with out-edges, heaviest first (see {@link Gather}).
 */
public final class BroadcastLayout {
    // each field's offset follows from the one before, as drawn above; the values start a cache line in
    private static final long SLOTS = 0;
    private static final long SENDERS = SLOTS + Long.BYTES;
    private static final long FIRST = SENDERS + Long.BYTES;
    public static final long HEADER = 64;

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

    public static long first(MemorySegment container) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, FIRST);
    }

    public static void setHeader(MemorySegment container, long slots, long senders, long first) {
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, SLOTS, slots);
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, SENDERS, senders);
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, FIRST, first);
    }

    /** Sets a slot's value: a double's raw bits or a long. */
    public static void setValue(MemorySegment container, long slot, long bits) {
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, HEADER + 8 * slot, bits);
    }

    public static long value(MemorySegment container, long slot) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, HEADER + 8 * slot);
    }
}

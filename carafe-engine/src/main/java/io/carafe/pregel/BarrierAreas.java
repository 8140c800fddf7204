package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What travels in the barrier's areas each superstep.
 *
 * <pre>
 *  worker area:      | active vertices (long) | messages sent (long) | bytes moved (long) | aggregator 0..A-1 (double) |
 *  coordinator area: | superstep (long)       | active (long)        | messages (long) | global aggregators of the previous superstep |
 * </pre>
 */
final class BarrierAreas {
    static final long ACTIVE = 0;
    static final long MESSAGES = 8;
    static final long BYTES = 16;
    static final long SUPERSTEP = 0;
    static final long TOTAL_ACTIVE = 8;
    static final long TOTAL_MESSAGES = 16;
    static final long AGGREGATES = 24;

    private BarrierAreas() {
    }

    static int bytes(int aggregators) {
        return (int) (AGGREGATES + 8L * aggregators);
    }

    static long getLong(MemorySegment area, long at) {
        return area.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
    }

    static void putLong(MemorySegment area, long at, long value) {
        area.set(ValueLayout.JAVA_LONG_UNALIGNED, at, value);
    }

    static double aggregate(MemorySegment area, int i) {
        return area.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, AGGREGATES + 8L * i);
    }

    static void putAggregate(MemorySegment area, int i, double value) {
        area.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, AGGREGATES + 8L * i, value);
    }
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What travels in the barrier's areas each superstep. Aggregators and globals are 8 bytes
 * each: a long, or a double's raw bits.
 *
 * <pre>
 *  worker area:      | active (long)    | messages sent (long) | bytes moved (long) | computed (long) | dense (long) | heartbeat (long) | aggregator 0..A-1 | (G unused) |
 *  coordinator area: | superstep (long) | active (long)        | messages (long)    | (unused)        | (unused)     | (unused)         | aggregators of the previous superstep | global 0..G-1 |
 * </pre>
 * active: vertices that have not voted to halt; computed: vertices that ran compute;
 * dense: 1 if the worker published its messages for gathering, 0 if it pushed them;
 * heartbeat: a count the worker's process raises and writes on its own, every
 * {@link Heartbeats#INTERVAL_MS} ms, whatever its superstep is doing.
 */
final class BarrierAreas {
    // each field's offset follows from the one before, all longs, as drawn above
    static final long ACTIVE = 0;
    static final long MESSAGES = ACTIVE + Long.BYTES;
    static final long BYTES = MESSAGES + Long.BYTES;
    static final long COMPUTED = BYTES + Long.BYTES;
    static final long DENSE = COMPUTED + Long.BYTES;
    static final long HEARTBEAT = DENSE + Long.BYTES;
    static final long SUPERSTEP = 0;
    static final long TOTAL_ACTIVE = SUPERSTEP + Long.BYTES;
    static final long TOTAL_MESSAGES = TOTAL_ACTIVE + Long.BYTES;
    static final long AGGREGATES = HEARTBEAT + Long.BYTES; // in both areas

    private BarrierAreas() {
    }

    static int bytes(int aggregators, int globals) {
        return (int) (AGGREGATES + 8L * (aggregators + globals));
    }

    static long getLong(MemorySegment area, long at) {
        return area.get(ValueLayout.JAVA_LONG_UNALIGNED, at);
    }

    static void putLong(MemorySegment area, long at, long value) {
        area.set(ValueLayout.JAVA_LONG_UNALIGNED, at, value);
    }

    static long aggregate(MemorySegment area, int i) {
        return getLong(area, AGGREGATES + 8L * i);
    }

    static void putAggregate(MemorySegment area, int i, long bits) {
        putLong(area, AGGREGATES + 8L * i, bits);
    }

    static long global(MemorySegment area, int aggregators, int i) {
        return getLong(area, AGGREGATES + 8L * (aggregators + i));
    }

    static void putGlobal(MemorySegment area, int aggregators, int i, long bits) {
        putLong(area, AGGREGATES + 8L * (aggregators + i), bits);
    }
}

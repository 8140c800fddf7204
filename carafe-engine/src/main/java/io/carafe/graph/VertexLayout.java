package io.carafe.graph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.IntConsumer;

/**
 * One vertex record; the vertex array is these records in internal-id order, so record
 * {@code v} is at {@code v * BYTES}. Internal ids are dense and follow the order of the
 * original ids.
 *
 * <pre>
 *  0               8               16      20      24              32
 *  +---------------+---------------+-------+-------+---------------+
 *  | original id   | first edge    | degree| flags | value (double)|
 *  +---------------+---------------+-------+-------+---------------+
 * </pre>
 * first edge: index of the vertex's first entry in the edges (and weights) arrays;
 * value: room for a per-vertex property.
 */
public final class VertexLayout {
    // each field's offset follows from the one before and its size, as drawn above
    public static final long ORIGINAL_ID = 0;
    public static final long FIRST_EDGE = ORIGINAL_ID + Long.BYTES;
    public static final long DEGREE = FIRST_EDGE + Long.BYTES;
    public static final long FLAGS = DEGREE + Integer.BYTES;
    public static final long VALUE = FLAGS + Integer.BYTES;
    public static final long BYTES = VALUE + Double.BYTES;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private VertexLayout() {
    }

    public static long offset(long vertex) {
        return vertex * BYTES;
    }

    public static long originalId(MemorySegment records, long vertex) {
        return records.get(LONG, offset(vertex) + ORIGINAL_ID);
    }

    public static long firstEdge(MemorySegment records, long vertex) {
        return records.get(LONG, offset(vertex) + FIRST_EDGE);
    }

    public static int degree(MemorySegment records, long vertex) {
        return records.get(INT, offset(vertex) + DEGREE);
    }

    private static final int WORDS = (int) (BYTES / Long.BYTES);
    private static final int DEGREE_WORD = (int) (DEGREE / Long.BYTES);
    private static final int DEGREE_SHIFT = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 0 : 32; // the degree's half of its word

    /**
     * The degree of record {@code vertex} among records copied into longs (their bytes in
     * this machine's order): an array's loads, which a fresh JVM runs compiled far sooner
     * than a segment's accessors (a setup loop over millions of records runs once).
     */
    public static int degree(long[] records, int vertex) {
        return (int) (records[vertex * WORDS + DEGREE_WORD] >>> DEGREE_SHIFT);
    }

    /**
     * The internal id of {@code originalId} among the first {@code count} records, or -1:
     * records are in original id order, so a binary search. {@code beforeProbe} is told each
     * record before its original id is read (a mapping in RStore reads those 8 bytes then).
     */
    public static int find(MemorySegment records, int count, long originalId, IntConsumer beforeProbe) {
        int lo = 0;
        int hi = count - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            beforeProbe.accept(mid);
            long found = originalId(records, mid);
            if (found < originalId) {
                lo = mid + 1;
            } else if (found > originalId) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    public static void write(MemorySegment records, long vertex, long originalId, long firstEdge, int degree) {
        long at = offset(vertex);
        records.set(LONG, at + ORIGINAL_ID, originalId);
        records.set(LONG, at + FIRST_EDGE, firstEdge);
        records.set(INT, at + DEGREE, degree);
        records.set(INT, at + FLAGS, 0);
        records.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, at + VALUE, 0.0);
    }
}

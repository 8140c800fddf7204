package io.carafe.graph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The adjacency arrays: targets as 4-byte internal ids, in vertex order, each vertex's
 * list sorted by target; weights, when the graph has them, in a parallel array of 8-byte
 * doubles, or of 4-byte floats when every weight is a float exactly (integers up to 2^24,
 * halves, the weights {@code --weights random} draws): the same values, so sums match
 * reference answers to the last bit either way, in half the memory. The graph's header
 * says which ({@link GraphHeader#weightBytes}).
 *
 * <pre>
 *  edges:   | t0 | t1 | t2 | ...        (int, edge e at e * 4)
 *  weights: |   w0    |   w1    | ...   (double, edge e at e * 8)
 *       or: | w0 | w1 | w2 | ...        (float, edge e at e * 4)
 * </pre>
 */
public final class EdgeLayout {
    public static final long TARGET_BYTES = Integer.BYTES;
    public static final int DOUBLE_WEIGHT_BYTES = Double.BYTES;
    public static final int FLOAT_WEIGHT_BYTES = Float.BYTES;

    private EdgeLayout() {
    }

    public static int target(MemorySegment edges, long edge) {
        return edges.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, edge);
    }

    /** Edge {@code edge}'s weight in an array of weights of {@code weightBytes} each. */
    public static double weight(MemorySegment weights, long edge, int weightBytes) {
        return weightBytes == FLOAT_WEIGHT_BYTES
                ? weights.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, edge)
                : weights.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, edge);
    }

    /** The bytes a weight takes for {@code weights[0, count)}: a float's when each of them is a float exactly, else a double's. */
    public static int weightBytes(double[] weights, long count) {
        for (int i = 0; i < count; i++) {
            if ((double) (float) weights[i] != weights[i]) {
                return DOUBLE_WEIGHT_BYTES;
            }
        }
        return FLOAT_WEIGHT_BYTES;
    }

    /** Writes {@code weights[0, count)} at {@code at} of {@code out}, {@code weightBytes} each. */
    public static void writeWeights(double[] weights, int count, MemorySegment out, long at, int weightBytes) {
        if (weightBytes == DOUBLE_WEIGHT_BYTES) {
            MemorySegment.copy(weights, 0, out, ValueLayout.JAVA_DOUBLE_UNALIGNED, at, count);
            return;
        }
        for (int i = 0; i < count; i++) {
            out.set(ValueLayout.JAVA_FLOAT_UNALIGNED, at + (long) i * FLOAT_WEIGHT_BYTES, (float) weights[i]);
        }
    }
}

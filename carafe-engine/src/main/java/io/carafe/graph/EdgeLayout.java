package io.carafe.graph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The adjacency arrays: targets as 4-byte internal ids, in vertex order, each vertex's
 * list sorted by target; weights, when the graph has them, as 8-byte doubles in a
 * parallel array (doubles, so sums match reference answers to the last bit).
 *
 * <pre>
 *  edges:   | t0 | t1 | t2 | ...        (int, edge e at e * 4)
 *  weights: |   w0    |   w1    | ...   (double, edge e at e * 8)
 * </pre>
 */
public final class EdgeLayout {
    public static final long TARGET_BYTES = Integer.BYTES;
    public static final long WEIGHT_BYTES = Double.BYTES;

    private EdgeLayout() {
    }

    public static int target(MemorySegment edges, long edge) {
        return edges.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, edge);
    }

    public static double weight(MemorySegment weights, long edge) {
        return weights.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, edge);
    }
}

package io.carafe.graph;

import java.lang.foreign.MemorySegment;

/**
 * Edge weights in a heap array, as the graph stores them: floats when its weights are
 * floats exactly ({@link GraphHeader#weightBytes}), else doubles, so an array read from
 * RStore takes what the section takes there and no more.
 */
public final class EdgeWeights {
    private final float[] floats;   // null: doubles
    private final double[] doubles; // null: floats

    private EdgeWeights(float[] floats, double[] doubles) {
        this.floats = floats;
        this.doubles = doubles;
    }

    /** Room for {@code count} weights of {@code weightBytes} each, zeroed. */
    public static EdgeWeights allocate(int count, int weightBytes) {
        return weightBytes == EdgeLayout.FLOAT_WEIGHT_BYTES ? new EdgeWeights(new float[count], null) : new EdgeWeights(null, new double[count]);
    }

    /** The array as memory, for reading a section into it. */
    public MemorySegment memory() {
        return floats != null ? MemorySegment.ofArray(floats) : MemorySegment.ofArray(doubles);
    }

    /** Weight {@code k}. */
    public double get(int k) {
        return floats != null ? floats[k] : doubles[k];
    }

    public int length() {
        return floats != null ? floats.length : doubles.length;
    }

    /** Bytes each weight takes here: 4 or 8. */
    public int weightBytes() {
        return floats != null ? EdgeLayout.FLOAT_WEIGHT_BYTES : EdgeLayout.DOUBLE_WEIGHT_BYTES;
    }
}

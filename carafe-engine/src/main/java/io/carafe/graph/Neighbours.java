package io.carafe.graph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * A vertex's out- or in-neighbours as internal ids in ascending order (the graph keeps
 * each list sorted and without parallel edges): a flyweight over memory its reader owns,
 * re-pointed by the reader's next call for the same direction. Nothing is copied to read
 * it, and nothing is allocated.
 */
public final class Neighbours {
    private MemorySegment memory = MemorySegment.NULL;
    private long base;
    private int size;

    void wrap(MemorySegment memory, long base, int size) {
        this.memory = memory;
        this.base = base;
        this.size = size;
    }

    public int size() {
        return size;
    }

    /** The {@code i}-th smallest neighbour. */
    public int get(int i) {
        Objects.checkIndex(i, size);
        return memory.get(ValueLayout.JAVA_INT_UNALIGNED, base + 4L * i);
    }

    /**
     * The index of {@code id} among the neighbours from index {@code from} on, or
     * {@code -(insertion point) - 1} as {@link java.util.Arrays#binarySearch} answers:
     * galloping from {@code from}, so a merge of a short list into a long one costs the
     * short one's length times a logarithm, not the long one's length.
     */
    public int search(int from, int id) {
        int low = from;
        int step = 1;
        int high = from;
        while (high < size && get(high) < id) { // gallop: the bracket doubles until it passes id
            low = high + 1;
            high = from + step;
            step <<= 1;
        }
        high = Math.min(high, size - 1);
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int at = get(mid);
            if (at < id) {
                low = mid + 1;
            } else if (at > id) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -(low + 1);
    }
}

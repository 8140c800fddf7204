package io.carafe.pregel;

import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Every vertex's value as the previous superstep left it, for a program that reads other
 * vertices' values ({@link Declaration#readingOtherValues()}): pointer jumping through a
 * label array in RStore. The job's values segment then holds two more copies of the whole
 * value array after its own, one per superstep parity. After superstep s each worker writes
 * its slice into copy {@code s & 1} (from the memory its values are mapped on, so nothing
 * is copied locally); at the start of superstep s+1 every worker reads that copy whole. A
 * worker writes copy {@code s & 1} again only at the end of s+2, and every worker finished
 * reading it before it reported s+1 finished. Workers that are threads of one process share
 * one buffer ({@link GatheredArrays}), which the first of them to ask reads; a program that
 * reads newer values sees each computed value there as soon as its worker shows it ({@link #show}).
 */
final class ValueSnapshots implements AutoCloseable {
    private final Mapping[] mine = new Mapping[2];   // this worker's slice of each copy, on its values' memory
    private final Mapping[] whole = new Mapping[2];  // each copy whole, on one local buffer
    private final MemorySegment all;
    private final MemorySegment values; // this worker's own, as compute writes them
    private final int from;
    private final GatheredArrays shared;

    /** The values segment's size: the job's values, and the two copies when the program reads other vertices' values. */
    static long segmentBytes(long valueBytes, long vertices, boolean readsOthers) {
        return Math.max(valueBytes * vertices * (readsOthers ? 3 : 1), 8);
    }

    /**
     * Maps the copies of a job's values segment for the worker whose values, {@code size}
     * records from vertex {@code from}, are mapped on {@code values}.
     */
    ValueSnapshots(RAddress valuesSegment, long valueBytes, long vertices, int from, int size, MemorySegment values, GatheredArrays shared) {
        long arrayBytes = valueBytes * vertices;
        if (valuesSegment.length() < segmentBytes(valueBytes, vertices, true)) {
            throw new IllegalStateException("the job's values segment has " + valuesSegment.length() + " bytes, too few for the copies a program"
                    + " that reads other vertices' values needs (" + segmentBytes(valueBytes, vertices, true) + "): the coordinator and this"
                    + " worker built different programs");
        }
        this.values = values;
        this.from = from;
        this.shared = shared;
        all = shared.values(Math.max(arrayBytes, 8)); // zero: superstep 0 reads every value as it starts
        for (int parity = 0; parity < 2; parity++) {
            long copy = arrayBytes * (1 + parity);
            if (size > 0) {
                mine[parity] = valuesSegment.map(copy + valueBytes * from, valueBytes * size, MapFlags.NONE, values);
            }
            if (arrayBytes > 0) {
                whole[parity] = valuesSegment.map(copy, arrayBytes, MapFlags.NONE, all);
            }
        }
    }

    /** After superstep {@code superstep}: this worker's values go to the copy the next superstep reads. */
    void publish(long superstep) {
        Mapping m = mine[(int) (superstep & 1)];
        if (m != null) {
            m.write();
        }
    }

    /**
     * At the start of superstep {@code superstep} (after the first): reads what every worker
     * published after the one before, once a process: the first of its workers to ask reads
     * into the buffer they share, the others wait for it. So no worker shows a newer value
     * ({@link #show}) where another's read may still write an older one.
     */
    void read(long superstep) {
        Mapping m = whole[(int) ((superstep - 1) & 1)];
        if (superstep > 0 && m != null) {
            shared.readValuesOnce(superstep, m::read);
        }
    }

    /**
     * Shows local vertex {@code local}'s value as compute left it to the readers of this
     * process, for a program that reads newer values ({@link Declaration#readingNewerValues}),
     * whose values are one long or double: one 8-byte store, which a reader on another
     * thread sees whole, the old value or the new.
     */
    void show(int local) {
        long at = Long.BYTES * (long) local;
        all.set(ValueLayout.JAVA_LONG_UNALIGNED, Long.BYTES * (long) from + at, values.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
    }

    /** The value array as read: vertex v's record at {@code v * valueBytes}. */
    MemorySegment all() {
        return all;
    }

    @Override
    public void close() {
        for (Mapping[] maps : new Mapping[][] {mine, whole}) {
            for (Mapping m : maps) {
                if (m != null) {
                    m.close();
                }
            }
        }
    }
}

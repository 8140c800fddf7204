package io.carafe.pregel;

import io.carafe.graph.EdgeOffsets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * The arrays a {@link Gather} fills each superstep, every partition's values by slot and
 * their sent bits, shared by the workers of one job that are threads of one process.
 * Every worker reads every partition's broadcast and writes the same bits into them, so
 * one copy serves all: the combine loop's random loads then share one array in the
 * machine's cache instead of one per worker (PageRank's on livejournal-synthetic fits this
 * machine's L3 once, not twice: docs/measure/notebook.md). A worker reads them
 * only after it has written them itself in the same superstep, and no worker writes them
 * for the next superstep before every worker has finished this one (the barrier), so a
 * reader sees its own bits or the same bits from another worker.
 *
 * <p>One buffer likewise holds the whole value array that a program reading other
 * vertices' values reads at the start of a superstep ({@link ValueSnapshots}), read once
 * for the process's workers ({@link #readValuesOnce}); and one copy serves them of the
 * gather's slots of every vertex, the edge offsets of every vertex that a program reading
 * neighbourhoods needs ({@link io.carafe.graph.EdgeOffsets}), and what the program itself
 * asks to share ({@link VertexProgram.Context#sharedInProcess}).
 */
final class GatheredArrays {
    private double[] doubles;
    private long[] longs;
    private long[] sent;
    private MemorySegment values;
    private final Object valuesLock = new Object();
    private long valuesReadFor = -1; // guarded by valuesLock: the superstep whose values the buffer holds, as read from RStore
    private EdgeOffsets edgeOffsets;
    private Gather.Slots slots;
    private final Object programLock = new Object();
    private Object program; // guarded by programLock

    synchronized double[] doubles(int length) {
        if (doubles == null || doubles.length != length) {
            doubles = new double[length];
        }
        return doubles;
    }

    synchronized long[] longs(int length) {
        if (longs == null || longs.length != length) {
            longs = new long[length];
        }
        return longs;
    }

    /** Native memory, as a mapping's local memory must be; freed when nobody holds it. */
    synchronized MemorySegment values(long bytes) {
        if (values == null || values.byteSize() != bytes) {
            values = Arena.ofAuto().allocate(bytes, 8);
        }
        return values;
    }

    /**
     * Runs {@code read} (into {@link #values}) unless another worker did for {@code superstep}
     * already; a worker that finds it under way waits for it. Every worker's read of one
     * superstep brings the same bytes, so one serves all; and a program that reads newer
     * values has its workers show them in the buffer only once it is read
     * ({@link ValueSnapshots#show}). The wait is the read's own: RStore's operations have
     * their timeouts.
     */
    void readValuesOnce(long superstep, Runnable read) {
        synchronized (valuesLock) {
            if (valuesReadFor != superstep) {
                read.run();
                valuesReadFor = superstep;
            }
        }
    }

    /** Every vertex's edge offsets, for programs that read neighbourhoods: read by the first worker that asks. */
    synchronized EdgeOffsets edgeOffsets(Supplier<EdgeOffsets> read) {
        if (edgeOffsets == null) {
            edgeOffsets = read.get();
        }
        return edgeOffsets;
    }

    /** Every partition's gather slots: assigned by the first worker that asks. */
    synchronized Gather.Slots slots(Supplier<Gather.Slots> assign) {
        if (slots == null) {
            slots = assign.get();
        }
        return slots;
    }

    /**
     * The program's shared object: made by the first worker that asks, under a lock of its
     * own (a long build must not hold up the arrays above), so the others wait for it.
     */
    <T> T program(Class<T> type, Supplier<? extends T> make) {
        synchronized (programLock) {
            if (program == null) {
                T made = make.get();
                if (made == null) {
                    throw new IllegalStateException("sharedInProcess(" + type.getSimpleName() + "): the supplier made null");
                }
                program = made;
            }
            if (!type.isInstance(program)) {
                throw new IllegalStateException("sharedInProcess(" + type.getSimpleName() + "): this job's workers share a "
                        + program.getClass().getSimpleName() + " already; a job shares one object");
            }
            return type.cast(program);
        }
    }

    synchronized long[] sentBits(int words) {
        if (sent == null || sent.length != words) {
            sent = new long[words];
        }
        return sent;
    }
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The directory of a Pregel job, at the init address of the job's namespace: everything a
 * worker needs to join, so workers share nothing but RStore. The coordinator writes the
 * header and partitioning; each worker writes its own row of the mailbox grid (the
 * address and capacity of its outbox segments) during the setup round.
 *
 * <pre>
 *  0  magic (long)          8  partitions P (int)    12 aggregators A (int)
 * 16  vertex count (long)  24  values at (long)      32 barrier at (long)
 * 40  combiner (int, -1 none)                        44 graph name length (int)
 * 48  graph name (UTF-8, up to 208 bytes)
 * 256 program spec length (int)   260 program spec (UTF-8, up to 248 bytes; empty: threads only)
 * 508 messaging (int: 0 push, 1 gather)
 * 512 partition starts: P+1 ints, padded to 8
 *  .. mailbox grid: P×P cells of (segment address long, capacity long), row i = outbox of i
 *     (gathering: every cell of row i names i's one broadcast segment and its slot count)
 * </pre>
 */
public final class JobLayout {
    public static final long MAGIC = 0x31424f4a_47455250L; // "PREGJOB1"
    private static final long PARTITIONS = 8;
    private static final long AGGREGATORS = 12;
    private static final long VERTICES = 16;
    private static final long VALUES = 24;
    private static final long BARRIER = 32;
    private static final long COMBINER = 40;
    private static final long NAME_LENGTH = 44;
    private static final long NAME = 48;
    private static final int NAME_MAX = 208;
    private static final long PROGRAM_LENGTH = 256;
    private static final long PROGRAM = 260;
    private static final int PROGRAM_MAX = 248;
    private static final long MESSAGING = 508;
    private static final long STARTS = 512;

    private JobLayout() {
    }

    public static long bytes(int partitions) {
        return grid(partitions) + 16L * partitions * partitions;
    }

    private static long grid(int partitions) {
        return STARTS + ((4L * (partitions + 1) + 7) & -8L);
    }

    /** Offset of cell (from, to) of the mailbox grid. */
    public static long cell(int partitions, int from, int to) {
        return grid(partitions) + 16L * ((long) from * partitions + to);
    }

    /** Offset and length of row {@code from} of the grid: what worker {@code from} writes. */
    public static long row(int partitions, int from) {
        return cell(partitions, from, 0);
    }

    public static long rowBytes(int partitions) {
        return 16L * partitions;
    }

    public static void writeHeader(MemorySegment s, int partitions, int aggregators, long vertices, long valuesAt, long barrierAt,
                                   Combiner combiner, Messaging messaging, String graph, String program, int[] starts) {
        byte[] name = graph.getBytes(StandardCharsets.UTF_8);
        if (name.length > NAME_MAX) {
            throw new IllegalArgumentException("graph name too long for a job directory: " + graph);
        }
        byte[] spec = (program == null ? "" : program).getBytes(StandardCharsets.UTF_8);
        if (spec.length > PROGRAM_MAX) {
            throw new IllegalArgumentException("program spec too long for a job directory: " + program);
        }
        s.set(ValueLayout.JAVA_INT_UNALIGNED, PROGRAM_LENGTH, spec.length);
        MemorySegment.copy(spec, 0, s, ValueLayout.JAVA_BYTE, PROGRAM, spec.length);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, MAGIC);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, PARTITIONS, partitions);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, AGGREGATORS, aggregators);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, VERTICES, vertices);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, VALUES, valuesAt);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, BARRIER, barrierAt);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, COMBINER, combiner == null ? -1 : combiner.ordinal());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, MESSAGING, messaging == Messaging.GATHER ? 1 : 0);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, NAME_LENGTH, name.length);
        MemorySegment.copy(name, 0, s, ValueLayout.JAVA_BYTE, NAME, name.length);
        for (int p = 0; p <= partitions; p++) {
            s.set(ValueLayout.JAVA_INT_UNALIGNED, STARTS + 4L * p, starts[p]);
        }
    }

    public static boolean valid(MemorySegment s) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) == MAGIC;
    }

    public static int partitions(MemorySegment s) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, PARTITIONS);
    }

    public static int aggregators(MemorySegment s) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, AGGREGATORS);
    }

    public static long vertices(MemorySegment s) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, VERTICES);
    }

    public static long valuesAt(MemorySegment s) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, VALUES);
    }

    public static long barrierAt(MemorySegment s) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, BARRIER);
    }

    public static Combiner combiner(MemorySegment s) {
        int ordinal = s.get(ValueLayout.JAVA_INT_UNALIGNED, COMBINER);
        return ordinal < 0 ? null : Combiner.values()[ordinal];
    }

    /** PUSH or GATHER, as the coordinator resolved it for the program. */
    public static Messaging messaging(MemorySegment s) {
        return s.get(ValueLayout.JAVA_INT_UNALIGNED, MESSAGING) == 1 ? Messaging.GATHER : Messaging.PUSH;
    }

    public static String graph(MemorySegment s) {
        int length = s.get(ValueLayout.JAVA_INT_UNALIGNED, NAME_LENGTH);
        byte[] name = new byte[length];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, NAME, name, 0, length);
        return new String(name, StandardCharsets.UTF_8);
    }

    /** The vertex program's spec, from which a worker in another process builds it; empty if there is none. */
    public static String program(MemorySegment s) {
        int length = s.get(ValueLayout.JAVA_INT_UNALIGNED, PROGRAM_LENGTH);
        if (length < 0 || length > PROGRAM_MAX) {
            throw new IllegalStateException("job directory holds a program spec of " + length + " bytes");
        }
        byte[] spec = new byte[length];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, PROGRAM, spec, 0, length);
        return new String(spec, StandardCharsets.UTF_8);
    }

    public static int[] starts(MemorySegment s) {
        int partitions = partitions(s);
        int[] starts = new int[partitions + 1];
        for (int p = 0; p <= partitions; p++) {
            starts[p] = s.get(ValueLayout.JAVA_INT_UNALIGNED, STARTS + 4L * p);
        }
        return starts;
    }

    public static void setCell(MemorySegment s, int partitions, int from, int to, long address, long capacity) {
        long at = cell(partitions, from, to);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, address);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, capacity);
    }

    public static long cellAddress(MemorySegment s, int partitions, int from, int to) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, cell(partitions, from, to));
    }

    public static long cellCapacity(MemorySegment s, int partitions, int from, int to) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, cell(partitions, from, to) + 8);
    }
}

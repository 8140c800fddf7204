package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The directory of a Pregel job, at the init address of the job's namespace: everything a
 * worker needs to join, so a worker needs nothing but RStore to take part. The coordinator writes the
 * header and partitioning; each worker writes its own row of the mailbox grid (where its
 * outbox page lists are and how many pages they hold room for, {@link MailboxLayout}) during
 * the setup round, and rewrites a cell whenever a list had to grow.
 *
 * <pre>
 *  0  magic (long)          8  partitions P (int)     12 aggregators A (int)
 * 16  vertex count (long)  24  values at (long)       32 barrier at (long)
 * 40  globals G (int)      44  value bytes (int)      48 message bytes (int)
 * 52  messaging (int: 0 push, 1 gather, 2 hybrid)     56 edge count (long)
 * 64  graph name length (int)     68 graph name (UTF-8, up to 252 bytes)
 * 320 program spec length (int)   324 program spec (UTF-8, up to 2,748 bytes; empty: threads only)
 * 3072 first superstep (long: 0, or the checkpoint a restarted job goes on from)
 * 3080 checkpoint every K supersteps (int, 0: none)   3084 checkpoint directory length (int)
 * 3088 neighbourhood cache bytes (long: each worker's cache of other partitions' edges)
 * 3096 gather plans directory length (int)
 * 3100 checkpoint directory (UTF-8, up to 1,000 bytes)
 * 4100 gather plans directory (UTF-8, up to 1,000 bytes; empty: plans are not kept)
 * 8192 partition starts: P+1 ints, padded to 8
 *  .. mailbox grid: P×P cells of (address, capacity in pages) for the even then the odd
 *     page list; row i = the outboxes of worker i
 *  .. broadcasts: P entries of (address, slot count), entry i = worker i's broadcast
 *     segment when the job gathers or is hybrid ({@link BroadcastLayout}); 0 otherwise
 * </pre>
 */
public final class JobLayout {
    public static final long MAGIC = 0x36424f4a_47455250L; // "PREGJOB6"
    // each field's offset follows from the one before and its size, as drawn above
    private static final long PARTITIONS = Long.BYTES; // after the magic
    private static final long AGGREGATORS = PARTITIONS + Integer.BYTES;
    private static final long VERTICES = AGGREGATORS + Integer.BYTES;
    private static final long VALUES = VERTICES + Long.BYTES;
    private static final long BARRIER = VALUES + Long.BYTES;
    private static final long GLOBALS = BARRIER + Long.BYTES;
    private static final long VALUE_BYTES = GLOBALS + Integer.BYTES;
    private static final long MESSAGE_BYTES = VALUE_BYTES + Integer.BYTES;
    private static final long MESSAGING = MESSAGE_BYTES + Integer.BYTES;
    private static final long EDGES = MESSAGING + Integer.BYTES;
    private static final long NAME_LENGTH = EDGES + Long.BYTES;
    private static final long NAME = NAME_LENGTH + Integer.BYTES;
    private static final int NAME_MAX = 252;
    private static final long PROGRAM_LENGTH = NAME + NAME_MAX;
    private static final long PROGRAM = PROGRAM_LENGTH + Integer.BYTES;
    private static final int PROGRAM_MAX = 2748;
    private static final long FIRST_SUPERSTEP = PROGRAM + PROGRAM_MAX;
    private static final long CHECKPOINT_EVERY = FIRST_SUPERSTEP + Long.BYTES;
    private static final long CHECKPOINT_DIR_LENGTH = CHECKPOINT_EVERY + Integer.BYTES;
    private static final long NEIGHBOURHOOD_CACHE = CHECKPOINT_DIR_LENGTH + Integer.BYTES;
    private static final long PLANS_DIR_LENGTH = NEIGHBOURHOOD_CACHE + Long.BYTES;
    private static final long CHECKPOINT_DIR = PLANS_DIR_LENGTH + Integer.BYTES;
    private static final int DIR_MAX = 1000;
    private static final long PLANS_DIR = CHECKPOINT_DIR + DIR_MAX;
    private static final long STARTS = (PLANS_DIR + DIR_MAX + 4095) & -4096L; // the partition starts begin on a 4 KiB boundary
    private static final long CELL = 32;
    private static final long BROADCAST = 16;

    /**
     * What the coordinator writes: the job as every worker must see it. A job restarted from
     * a checkpoint starts at {@code firstSuperstep}, which the workers restore from
     * {@code checkpointDirectory}; with {@code checkpointEvery} K > 0 they write their part of
     * a checkpoint there after every K-th superstep. A program that reads neighbourhoods
     * keeps at most {@code neighbourhoodCacheBytes} of other partitions' edges per worker. A
     * gathering job's workers keep their {@link GatherPlan}s in {@code gatherPlans} (empty: not kept).
     */
    public record Header(int partitions, int aggregators, int globals, long vertices, long edges, int valueBytes, int messageBytes,
                         long valuesAt, long barrierAt, Messaging messaging, String graph, String program, int[] starts,
                         long firstSuperstep, int checkpointEvery, String checkpointDirectory, long neighbourhoodCacheBytes,
                         String gatherPlans) {
    }

    private JobLayout() {
    }

    public static long bytes(int partitions) {
        return broadcasts(partitions) + BROADCAST * partitions;
    }

    /** Offset of the broadcast table, after the grid. */
    private static long broadcasts(int partitions) {
        return grid(partitions) + CELL * partitions * partitions;
    }

    /** Offset and length of worker {@code from}'s broadcast entry: it writes it in the setup round. */
    public static long broadcast(int partitions, int from) {
        return broadcasts(partitions) + BROADCAST * from;
    }

    public static long broadcastBytes() {
        return BROADCAST;
    }

    /** Offset and length of the whole broadcast table, which a worker reads once, joining the others' broadcasts. */
    public static long broadcastsOffset(int partitions) {
        return broadcasts(partitions);
    }

    public static long broadcastsBytes(int partitions) {
        return BROADCAST * partitions;
    }

    public static void setBroadcast(MemorySegment s, int partitions, int from, long address, long slots) {
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, broadcast(partitions, from), address);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, broadcast(partitions, from) + 8, slots);
    }

    public static long broadcastAddress(MemorySegment s, int partitions, int from) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, broadcast(partitions, from));
    }

    public static long broadcastSlots(MemorySegment s, int partitions, int from) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, broadcast(partitions, from) + 8);
    }

    private static long grid(int partitions) {
        return STARTS + ((4L * (partitions + 1) + 7) & -8L);
    }

    /** Offset of cell (from, to) of the mailbox grid. */
    public static long cell(int partitions, int from, int to) {
        return grid(partitions) + CELL * ((long) from * partitions + to);
    }

    /** Offset and length of row {@code from} of the grid: what worker {@code from} writes. */
    public static long row(int partitions, int from) {
        return cell(partitions, from, 0);
    }

    public static long rowBytes(int partitions) {
        return CELL * partitions;
    }

    /** Offset of the part of cell (from, to) that names the page list of {@code parity}. */
    public static long cellPart(int partitions, int from, int to, long parity) {
        return cell(partitions, from, to) + 16 * (parity & 1);
    }

    /** Offset and length of the whole grid, which a worker reads each superstep to find its inbox page lists. */
    public static long gridOffset(int partitions) {
        return grid(partitions);
    }

    public static long gridBytes(int partitions) {
        return CELL * partitions * partitions;
    }

    public static void writeHeader(MemorySegment s, Header h) {
        byte[] name = h.graph().getBytes(StandardCharsets.UTF_8);
        if (name.length > NAME_MAX) {
            throw new IllegalArgumentException("graph name too long for a job directory (" + name.length + " bytes, at most " + NAME_MAX + "): " + h.graph());
        }
        byte[] spec = (h.program() == null ? "" : h.program()).getBytes(StandardCharsets.UTF_8);
        if (spec.length > PROGRAM_MAX) {
            throw new IllegalArgumentException("program spec too long for a job directory (" + spec.length + " bytes, at most " + PROGRAM_MAX + ")");
        }
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, MAGIC);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, PARTITIONS, h.partitions());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, AGGREGATORS, h.aggregators());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, VERTICES, h.vertices());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, VALUES, h.valuesAt());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, BARRIER, h.barrierAt());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, GLOBALS, h.globals());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, VALUE_BYTES, h.valueBytes());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, MESSAGE_BYTES, h.messageBytes());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, MESSAGING, switch (h.messaging()) {
            case PUSH -> 0;
            case GATHER -> 1;
            case HYBRID -> 2;
            case AUTO -> throw new IllegalArgumentException("a job directory records the messaging a job runs with, not auto");
        });
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, EDGES, h.edges());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, NAME_LENGTH, name.length);
        MemorySegment.copy(name, 0, s, ValueLayout.JAVA_BYTE, NAME, name.length);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, PROGRAM_LENGTH, spec.length);
        MemorySegment.copy(spec, 0, s, ValueLayout.JAVA_BYTE, PROGRAM, spec.length);
        byte[] checkpoints = h.checkpointDirectory().getBytes(StandardCharsets.UTF_8);
        if (checkpoints.length > DIR_MAX) {
            throw new IllegalArgumentException("checkpoint directory path too long for a job directory (" + checkpoints.length + " bytes, at most "
                    + DIR_MAX + "): " + h.checkpointDirectory());
        }
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, FIRST_SUPERSTEP, h.firstSuperstep());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, CHECKPOINT_EVERY, h.checkpointEvery());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, NEIGHBOURHOOD_CACHE, h.neighbourhoodCacheBytes());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, CHECKPOINT_DIR_LENGTH, checkpoints.length);
        MemorySegment.copy(checkpoints, 0, s, ValueLayout.JAVA_BYTE, CHECKPOINT_DIR, checkpoints.length);
        byte[] plans = h.gatherPlans().getBytes(StandardCharsets.UTF_8);
        if (plans.length > DIR_MAX) {
            throw new IllegalArgumentException("gather plans directory path too long for a job directory (" + plans.length + " bytes, at most "
                    + DIR_MAX + "): " + h.gatherPlans());
        }
        s.set(ValueLayout.JAVA_INT_UNALIGNED, PLANS_DIR_LENGTH, plans.length);
        MemorySegment.copy(plans, 0, s, ValueLayout.JAVA_BYTE, PLANS_DIR, plans.length);
        for (int p = 0; p <= h.partitions(); p++) {
            s.set(ValueLayout.JAVA_INT_UNALIGNED, STARTS + 4L * p, h.starts()[p]);
        }
    }

    public static boolean valid(MemorySegment s) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) == MAGIC;
    }

    public static Header readHeader(MemorySegment s) {
        int partitions = s.get(ValueLayout.JAVA_INT_UNALIGNED, PARTITIONS);
        int[] starts = new int[partitions + 1];
        for (int p = 0; p <= partitions; p++) {
            starts[p] = s.get(ValueLayout.JAVA_INT_UNALIGNED, STARTS + 4L * p);
        }
        return new Header(partitions, s.get(ValueLayout.JAVA_INT_UNALIGNED, AGGREGATORS), s.get(ValueLayout.JAVA_INT_UNALIGNED, GLOBALS),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, VERTICES), s.get(ValueLayout.JAVA_LONG_UNALIGNED, EDGES),
                s.get(ValueLayout.JAVA_INT_UNALIGNED, VALUE_BYTES), s.get(ValueLayout.JAVA_INT_UNALIGNED, MESSAGE_BYTES),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, VALUES), s.get(ValueLayout.JAVA_LONG_UNALIGNED, BARRIER),
                messaging(s.get(ValueLayout.JAVA_INT_UNALIGNED, MESSAGING)),
                text(s, NAME_LENGTH, NAME, NAME_MAX), text(s, PROGRAM_LENGTH, PROGRAM, PROGRAM_MAX), starts,
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, FIRST_SUPERSTEP), s.get(ValueLayout.JAVA_INT_UNALIGNED, CHECKPOINT_EVERY),
                text(s, CHECKPOINT_DIR_LENGTH, CHECKPOINT_DIR, DIR_MAX), s.get(ValueLayout.JAVA_LONG_UNALIGNED, NEIGHBOURHOOD_CACHE),
                text(s, PLANS_DIR_LENGTH, PLANS_DIR, DIR_MAX));
    }

    private static Messaging messaging(int code) {
        return switch (code) {
            case 0 -> Messaging.PUSH;
            case 1 -> Messaging.GATHER;
            case 2 -> Messaging.HYBRID;
            default -> throw new IllegalStateException("job directory names messaging " + code + ", which this build does not know");
        };
    }

    private static String text(MemorySegment s, long lengthAt, long at, int max) {
        int length = s.get(ValueLayout.JAVA_INT_UNALIGNED, lengthAt);
        if (length < 0 || length > max) {
            throw new IllegalStateException("job directory holds a text of " + length + " bytes where at most " + max + " fit");
        }
        byte[] bytes = new byte[length];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, at, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Names the page list of {@code parity} in cell (from, to). */
    public static void setCell(MemorySegment s, int partitions, int from, int to, long parity, long address, long capacity) {
        long at = cellPart(partitions, from, to, parity);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at, address);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, capacity);
    }

    public static long cellAddress(MemorySegment s, int partitions, int from, int to, long parity) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, cellPart(partitions, from, to, parity));
    }

    public static long cellCapacity(MemorySegment s, int partitions, int from, int to, long parity) {
        return s.get(ValueLayout.JAVA_LONG_UNALIGNED, cellPart(partitions, from, to, parity) + 8);
    }
}

package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.InEdgeLists;
import io.rstore.AllocFlags;
import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One partition worker's side of {@link Messaging#GATHER}. Each partition publishes one
 * value per <em>slot</em> — its vertices with out-edges, heaviest (most out-edges) first —
 * and every partition reads all of them into one array; a receiver then combines, for each
 * of its vertices, the values of its in-neighbours' slots. Every worker computes every
 * partition's slots from the out-degrees alone and reads its own vertices' in-edges from
 * the graph (stored with it at import), so no edge list crosses between workers.
 *
 * <p>Why slots and not vertex ids: the combine loop loads one value per edge at a random
 * place, and the heavy senders are read most. Packing them at the front keeps the hot
 * part of the array in cache; on a 4.8M-vertex R-MAT graph the same loop in C runs in
 * about half the time over slots as over vertex ids (docs/measure/pull_floor.c). Leaving
 * vertices without out-edges out shrinks the array too (by half on that graph).
 */
final class Gather implements AutoCloseable {
    private final int partitions;
    private final int index;
    private final int from;
    private final int size;
    private final DoubleCombiner combiner;
    /** Slot counts and where each partition's slots start in {@link #gathered} (multiples of 64, so sent bits copy as words). */
    private final long[] slots;
    private final int[] base;
    /** Per local vertex: its slot in this partition's outbox (-1 without out-edges), and its out-degree. */
    private final int[] mySlot;
    private final int[] degree;
    /** In-edges of the local vertices, as the gathered-array slots of their sources. */
    private final int[] inStart;
    private final int[] inSource;
    /** Local vertices with at least one in-edge: who has messages when every slot sent. */
    private final long[] hasInEdges;

    private final double[] gathered;
    private final long[] sent;
    private final Batch batch = new Batch();
    private Mapping outbox;
    private final MemorySegment[] outContainer = new MemorySegment[2];
    private final Mapping[] inbox;
    private final MemorySegment[][] inContainer;
    private long senders;

    private Gather(Partitioning partitioning, int index, DoubleCombiner combiner, long[] slots, int[] base, int[] mySlot, int[] degree,
                   int[] inStart, int[] inSource) {
        this.partitions = partitioning.partitions();
        this.index = index;
        this.from = partitioning.start(index);
        this.size = partitioning.end(index) - from;
        this.combiner = combiner;
        this.slots = slots;
        this.base = base;
        this.mySlot = mySlot;
        this.degree = degree;
        this.inStart = inStart;
        this.inSource = inSource;
        this.hasInEdges = new long[(size + 63) >>> 6];
        for (int u = 0; u < size; u++) {
            if (inStart[u + 1] > inStart[u]) {
                hasInEdges[u >>> 6] |= 1L << u;
            }
        }
        int total = base[partitions];
        this.gathered = new double[total];
        this.sent = new long[total >>> 6];
        this.inbox = new Mapping[partitions];
        this.inContainer = new MemorySegment[2][partitions];
    }

    /**
     * Every vertex's out-degree (the vertex records alone) gives every partition's slots;
     * this partition's in-edges come from the graph's in-edge sections (built at import),
     * their sources then renamed to slots. No worker reads another's edges.
     */
    static Gather build(RStore rstore, String graph, Partitioning partitioning, int index, DoubleCombiner combiner) {
        int partitions = partitioning.partitions();
        int from = partitioning.start(index);
        int size = partitioning.end(index) - from;
        int[] slotOf = CarafeGraph.outDegrees(rstore, graph, 0, partitioning.end(partitions - 1)); // degrees, then slots
        int[] degree = Arrays.copyOfRange(slotOf, from, from + size);
        long[] slots = new long[partitions];
        int[] base = new int[partitions + 1];
        for (int j = 0; j < partitions; j++) {
            slots[j] = assignSlots(slotOf, partitioning.start(j), partitioning.end(j), base[j]);
            long next = base[j] + ((slots[j] + 63) & -64L);
            if (next > Integer.MAX_VALUE - 64) {
                throw new IllegalStateException("too many vertices with out-edges to gather in one array (" + next + ")");
            }
            base[j + 1] = (int) next;
        }
        int[] mySlot = new int[size];
        for (int u = 0; u < size; u++) {
            int slot = slotOf[from + u];
            mySlot[u] = slot < 0 ? -1 : slot - base[index];
        }
        InEdgeLists in = InEdgeLists.read(rstore, graph, from, from + size, false);
        int[] inSource = in.sources();
        for (int e = 0; e < inSource.length; e++) {
            inSource[e] = slotOf[inSource[e]]; // a source has an out-edge, so a slot
        }
        return new Gather(partitioning, index, combiner, slots, base, mySlot, degree, in.start(), inSource);
    }

    /**
     * Numbers the vertices with out-edges of one partition, {@code [start, end)}, from
     * {@code base} on, by out-degree descending and id ascending (a counting sort):
     * {@code degreeToSlot[v]} holds vertex v's degree on entry and its slot (-1 without
     * out-edges) on return. Returns how many got a slot.
     */
    private static long assignSlots(int[] degreeToSlot, int start, int end, int base) {
        int max = 0;
        for (int i = start; i < end; i++) {
            max = Math.max(max, degreeToSlot[i]);
        }
        int[] next = new int[max + 2]; // next[d]: the next slot for degree d
        for (int i = start; i < end; i++) {
            next[degreeToSlot[i]]++;
        }
        int at = base;
        for (int d = max; d >= 1; d--) {
            int count = next[d];
            next[d] = at;
            at += count;
        }
        for (int i = start; i < end; i++) {
            int d = degreeToSlot[i];
            degreeToSlot[i] = d > 0 ? next[d]++ : -1;
        }
        return at - base;
    }

    long slots() {
        return slots[index];
    }

    int degree(int local) {
        return degree[local];
    }

    /** Allocates and maps this partition's broadcast segment; every cell of its grid row names it. */
    RAddress allocate(Namespace job) {
        RAddress segment = job.alloc(BroadcastLayout.segmentBytes(slots[index]), AllocFlags.GROW | AllocFlags.ZERO);
        outbox = segment.map(MapFlags.NONE);
        for (int parity = 0; parity < 2; parity++) {
            outContainer[parity] = outbox.segment().asSlice(BroadcastLayout.container(slots[index], parity), BroadcastLayout.containerBytes(slots[index]));
        }
        return segment;
    }

    /** Maps partition j's broadcast segment, named by cell (j, index) of the grid, once every worker has published it. */
    void join(Namespace job, int j, long address, long slotCount) {
        if (slotCount != slots[j]) {
            throw new IllegalStateException("partition " + j + " publishes " + slotCount + " slots, this worker counted " + slots[j]
                    + ": the workers see different graphs");
        }
        inbox[j] = job.raddress(address).map(MapFlags.NONE);
        for (int parity = 0; parity < 2; parity++) {
            inContainer[parity][j] = inbox[j].segment().asSlice(BroadcastLayout.container(slotCount, parity), BroadcastLayout.containerBytes(slotCount));
        }
    }

    /** Before compute: the outgoing container holds the identity for every slot and no sent bits. */
    void startStep(long superstep) {
        MemorySegment out = outContainer[(int) ((superstep + 1) & 1)];
        long n = slots[index];
        double identity = combiner.identity();
        if (Double.doubleToRawLongBits(identity) == 0) {
            out.asSlice(BroadcastLayout.values(), 8 * n).fill((byte) 0);
        } else {
            for (long s = 0; s < n; s++) {
                BroadcastLayout.setValue(out, s, identity);
            }
        }
        out.asSlice(BroadcastLayout.sentBits(n), 8 * BroadcastLayout.words(n)).fill((byte) 0);
        senders = 0;
    }

    /** Local vertex {@code local} sends {@code value} along its out-edges; returns how many messages that stands for. */
    int send(long superstep, int local, double value) {
        int slot = mySlot[local];
        if (slot < 0) {
            return 0;
        }
        MemorySegment out = outContainer[(int) ((superstep + 1) & 1)];
        BroadcastLayout.setValue(out, slot, value);
        long word = BroadcastLayout.sentBits(slots[index]) + 8L * (slot >>> 6);
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, word, out.get(ValueLayout.JAVA_LONG_UNALIGNED, word) | 1L << slot);
        senders++;
        return degree[local];
    }

    /** After compute: writes the outgoing container. */
    void publish(long superstep) {
        long n = slots[index];
        BroadcastLayout.setHeader(outContainer[(int) ((superstep + 1) & 1)], n, senders);
        batch.write(outbox, BroadcastLayout.container(n, superstep + 1), BroadcastLayout.containerBytes(n));
        batch.join();
    }

    /** For a checkpoint: the container this partition published for {@code superstep} to gather (values and sent bits). */
    MemorySegment sent(long superstep) {
        return outContainer[(int) (superstep & 1)];
    }

    /** Restarting from a checkpoint: publishes {@link #sent}'s container again, for {@code superstep} to gather. */
    void resend(long superstep, MemorySegment saved) {
        MemorySegment out = outContainer[(int) (superstep & 1)];
        if (saved.byteSize() != out.byteSize()) {
            throw new IllegalStateException("the checkpoint's broadcast holds " + saved.byteSize() + " bytes, this partition's " + out.byteSize());
        }
        MemorySegment.copy(saved, 0, out, 0, out.byteSize());
        batch.write(outbox, BroadcastLayout.container(slots[index], superstep), BroadcastLayout.containerBytes(slots[index]));
        batch.join();
    }

    /**
     * Reads every partition's values of the previous superstep and combines them along the
     * in-edges: {@code combined[u]} and bit u of {@code hasMessage} for each local vertex u.
     */
    void gather(long superstep, double[] combined, long[] hasMessage) {
        if (superstep == 0) {
            Arrays.fill(hasMessage, 0);
            return;
        }
        for (int j = 0; j < partitions; j++) {
            batch.read(inbox[j], BroadcastLayout.container(slots[j], superstep), BroadcastLayout.containerBytes(slots[j]));
        }
        batch.join();
        boolean everySlotSent = true;
        for (int j = 0; j < partitions; j++) {
            MemorySegment c = inContainer[(int) (superstep & 1)][j];
            long n = slots[j];
            long senders = BroadcastLayout.senders(c);
            if (BroadcastLayout.slots(c) != n || senders < 0 || senders > n) {
                throw new IllegalStateException("broadcast " + j + "->" + index + " claims " + BroadcastLayout.slots(c) + " slots and "
                        + senders + " senders, expected " + n + " slots");
            }
            MemorySegment.copy(c, ValueLayout.JAVA_DOUBLE_UNALIGNED, BroadcastLayout.values(), gathered, base[j], (int) n);
            if (senders == n) {
                Arrays.fill(sent, base[j] >>> 6, base[j + 1] >>> 6, -1L);
            } else {
                everySlotSent = false;
                MemorySegment.copy(c, ValueLayout.JAVA_LONG_UNALIGNED, BroadcastLayout.sentBits(n), sent, base[j] >>> 6, (int) BroadcastLayout.words(n));
            }
        }
        if (everySlotSent) {
            System.arraycopy(hasInEdges, 0, hasMessage, 0, hasMessage.length);
            combineAll(combined);
        } else {
            combineSent(combined, hasMessage);
        }
    }

    /**
     * The hot loop: one random load per in-edge (slots that sent nothing hold the
     * identity). SUM, PageRank's combiner, has a loop of its own with the addition in
     * line, which the JIT unrolls; MIN and MAX go through the combiner.
     */
    private void combineAll(double[] combined) {
        int[] start = inStart;
        int[] source = inSource;
        double[] values = gathered;
        if (combiner == DoubleCombiner.SUM) {
            for (int u = 0; u < size; u++) {
                double acc = 0;
                for (int e = start[u], end = start[u + 1]; e < end; e++) {
                    acc += values[source[e]];
                }
                combined[u] = acc;
            }
            return;
        }
        DoubleCombiner c = combiner;
        for (int u = 0; u < size; u++) {
            double acc = c.identity();
            for (int e = start[u], end = start[u + 1]; e < end; e++) {
                acc = c.combine(acc, values[source[e]]);
            }
            combined[u] = acc;
        }
    }

    /** When some slots sent nothing: a vertex has messages only if one of its in-neighbours sent. */
    private void combineSent(double[] combined, long[] hasMessage) {
        Arrays.fill(hasMessage, 0);
        for (int u = 0; u < size; u++) {
            double acc = combiner.identity();
            boolean any = false;
            for (int e = inStart[u], end = inStart[u + 1]; e < end; e++) {
                int s = inSource[e];
                if ((sent[s >>> 6] & 1L << s) != 0) {
                    acc = combiner.combine(acc, gathered[s]);
                    any = true;
                }
            }
            combined[u] = acc;
            if (any) {
                hasMessage[u >>> 6] |= 1L << u;
            }
        }
    }

    @Override
    public void close() {
        for (Mapping m : inbox) {
            if (m != null) {
                m.close();
            }
        }
        if (outbox != null) {
            outbox.close();
        }
    }
}

package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeWeights;
import io.rstore.AllocFlags;
import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One partition worker's side of {@link Messaging#GATHER} and the dense supersteps of
 * {@link Messaging#HYBRID}. Each partition publishes one 8-byte value (a double or a long)
 * per <em>slot</em> — its vertices with out-edges, heaviest (most out-edges) first — and
 * every partition reads all of them into one array; a receiver then combines, for each of
 * its vertices, the values of its in-neighbours' slots. Every worker computes every
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
    /** The combiner: one of these is set, as the messages are doubles or longs. */
    private final DoubleCombiner doubles;
    private final LongCombiner longs;
    /** Slot counts and where each partition's slots start in the gathered array (multiples of 64, so sent bits copy as words). */
    private final long[] slots;
    private final int[] base;
    /** Per local vertex: its slot in this partition's outbox (-1 if it reaches nobody), its out-degree, and the messages a send stands for. */
    private final int[] mySlot;
    private final int[] outDegree;
    private final int[] degree;
    private final long edges;
    /** The program sends one value each superstep (Declaration.sameValueEachSuperstep): a vertex's first sending in-neighbour tells it all. */
    private final boolean oneValue;
    /**
     * Doubles gathered with the identity in the slots that did not send: whenever the identity
     * plus a weight stays the identity (MIN's +Infinity, MAX's -Infinity; or no weights added).
     */
    private final boolean blended;
    private long firstSent; // this superstep's value, once a vertex sent it
    private long agreedBits; // the value every sender of the superstep gathered sent, read from the headers (oneValue)
    /** In-edges of the local vertices, as the gathered-array slots of their sources, and their weights (floats or doubles, as stored). */
    private final int[] inStart;
    private final int[] inSource;
    private final boolean plusWeight; // sends add the edge's weight: SSSP's relaxation
    private final EdgeWeights inWeight; // with plusWeight on a weighted graph, else null (every edge weighs 1)
    /** Local vertices with at least one in-edge: who has messages when every slot sent. */
    private final long[] hasInEdges;

    /**
     * Every partition's values of the previous superstep, by slot (doubles or longs as the
     * combiner is), and their sent bits: shared by the job's workers in this process. No
     * values when the program sends one value each superstep: the headers carry it.
     */
    private final double[] gatheredDoubles;
    private final long[] gatheredLongs;
    private final long[] sent;
    private final boolean[] published; // per partition: whether it published values for this superstep to gather
    private final Batch batch = new Batch();
    private Mapping outbox;
    private final MemorySegment[] outContainer = new MemorySegment[2];
    /** Per parity: the outgoing container holds values of a superstep that published them, to be reset before its next use. */
    private final boolean[] dirty = {true, true};
    private final Mapping[] inbox;
    private final MemorySegment[][] inContainer;
    private long sending;
    /** The plan, and its file being written for the next job while this one runs: awaited at {@link #close}. */
    private final GatherPlan.Obtained obtained;

    private Gather(Partitioning partitioning, int index, Combiner combiner, GatherPlan.Obtained obtained, boolean plusWeight, boolean oneValue,
                   GatheredArrays arrays) {
        GatherPlan plan = obtained.plan();
        this.obtained = obtained;
        this.partitions = partitioning.partitions();
        this.index = index;
        this.from = partitioning.start(index);
        this.size = partitioning.end(index) - from;
        this.doubles = combiner instanceof DoubleCombiner d ? d : null;
        this.longs = combiner instanceof LongCombiner l ? l : null;
        if (doubles == null && longs == null) {
            throw new IllegalArgumentException("gathering needs a DoubleCombiner or a LongCombiner, not " + combiner);
        }
        this.slots = plan.counts();
        this.base = plan.base();
        this.mySlot = plan.mySlot();
        this.outDegree = plan.outDegree();
        this.degree = plan.degree();
        long sum = 0;
        for (int d : degree) {
            sum += d;
        }
        this.edges = sum;
        this.inStart = plan.start();
        this.inSource = plan.source();
        this.plusWeight = plusWeight;
        this.inWeight = plan.weights();
        this.oneValue = oneValue;
        this.blended = doubles != null && !oneValue && (!plusWeight || Double.isInfinite(doubles.identity()));
        this.hasInEdges = new long[(size + 63) >>> 6];
        for (int u = 0; u < size; u++) {
            if (inStart[u + 1] > inStart[u]) {
                hasInEdges[u >>> 6] |= 1L << u;
            }
        }
        int total = base[partitions];
        this.gatheredDoubles = doubles != null && !oneValue ? arrays.doubles(total) : null; // one value needs no array of them
        this.gatheredLongs = longs != null && !oneValue ? arrays.longs(total) : null;
        this.sent = arrays.sentBits(total >>> 6);
        this.published = new boolean[partitions];
        this.inbox = new Mapping[partitions];
        this.inContainer = new MemorySegment[2][partitions];
    }

    /**
     * Partition {@code index}'s gather, from its {@link GatherPlan}: read from
     * {@code plans} when an earlier job left it there, else made from the graph. A program
     * that sends to all neighbours ({@code allNeighbours}) of a directed graph is heard along
     * in- and out-edges; one whose sends add the edge's weight ({@code plusWeight}) has the
     * in-edges' weights; one that sends one value each superstep ({@code oneValue}) is
     * combined from a vertex's first sending in-neighbour alone. With {@code sortInLists}
     * each in-list is sorted by slot. The gathered values go into {@code arrays}, which the
     * job's other workers in this process share.
     */
    static Gather build(RStore rstore, String graph, Partitioning partitioning, int index, Combiner combiner, boolean allNeighbours,
                        boolean plusWeight, boolean oneValue, boolean sortInLists, GatheredArrays arrays, Path plans) {
        boolean bothWays = allNeighbours && CarafeGraph.header(rstore, graph).directed();
        GatherPlan.Obtained plan = GatherPlan.obtainWritingBehind(plans, rstore, graph, partitioning, index, bothWays, plusWeight, sortInLists,
                arrays);
        return new Gather(partitioning, index, combiner, plan, plusWeight, oneValue, arrays);
    }

    /**
     * Every vertex's slot (-1 for one that reaches nobody), each partition's count of slots
     * and where they start in the gathered array (multiples of 64): computed from the degrees
     * alone, the same for every worker of a job, so made once a process ({@link GatheredArrays}).
     * Every vertex's out-degree too, which each partition's plan takes its own from.
     */
    record Slots(int[] slotOf, long[] counts, int[] base, int[] outDegree) {
        static Slots assign(RStore rstore, String graph, Partitioning partitioning, boolean bothWays) {
            int partitions = partitioning.partitions();
            int n = partitioning.end(partitions - 1);
            int[] outDegree = CarafeGraph.outDegrees(rstore, graph, 0, n);
            int[] slotOf = outDegree.clone(); // degrees, then slots
            if (bothWays) {
                int[] in = CarafeGraph.inDegrees(rstore, graph, 0, n);
                for (int v = 0; v < n; v++) {
                    slotOf[v] += in[v];
                }
            }
            long[] counts = new long[partitions];
            int[] base = new int[partitions + 1];
            for (int j = 0; j < partitions; j++) {
                counts[j] = assignSlots(slotOf, partitioning.start(j), partitioning.end(j), base[j]);
                long next = base[j] + ((counts[j] + 63) & -64L);
                if (next > Integer.MAX_VALUE - 64) {
                    throw new IllegalStateException("too many vertices with out-edges to gather in one array (" + next + ")");
                }
                base[j + 1] = (int) next;
            }
            return new Slots(slotOf, counts, base, outDegree);
        }
    }

    /**
     * Numbers the vertices of one partition, {@code [start, end)}, that reach anybody, from
     * {@code base} on, by degree descending and id ascending (a counting sort):
     * {@code degreeToSlot[v]} holds vertex v's degree (out-, or out- plus in- when heard
     * both ways) on entry and its slot (-1 for degree 0) on return. Returns how many got a slot.
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

    /** Whether senders that send {@code messages} (along that many of this partition's edges) go dense: published rather than pushed. */
    boolean dense(long messages) {
        return messages > edges / Messaging.DENSE_FRACTION; // the most a sparse superstep of this partition sends
    }

    int outDegree(int local) {
        return outDegree[local];
    }

    /** Out-degrees by local vertex. */
    int[] outDegrees() {
        return outDegree;
    }

    /** Allocates and maps this partition's broadcast segment; the caller names it in the job directory. */
    RAddress allocate(Namespace job) {
        RAddress segment = job.alloc(BroadcastLayout.segmentBytes(slots[index]), AllocFlags.GROW | AllocFlags.ZERO);
        outbox = segment.map(MapFlags.NONE);
        for (int parity = 0; parity < 2; parity++) {
            outContainer[parity] = outbox.segment().asSlice(BroadcastLayout.container(slots[index], parity), BroadcastLayout.containerBytes(slots[index]));
        }
        return segment;
    }

    /** Maps partition j's broadcast segment, named in the job directory, once every worker has published it. */
    void join(Namespace job, int j, long address, long slotCount) {
        if (slotCount != slots[j]) {
            throw new IllegalStateException("partition " + j + " publishes " + slotCount + " slots, this worker counted " + slots[j]
                    + ": the workers see different graphs");
        }
        if (j == index) { // its own broadcast is in its outbox already: no second mapping, and nothing to read
            inContainer[0][j] = outContainer[0];
            inContainer[1][j] = outContainer[1];
            return;
        }
        inbox[j] = job.raddress(address).map(MapFlags.NONE);
        for (int parity = 0; parity < 2; parity++) {
            inContainer[parity][j] = inbox[j].segment().asSlice(BroadcastLayout.container(slotCount, parity), BroadcastLayout.containerBytes(slotCount));
        }
    }

    /**
     * Before compute: the outgoing container has no sent bits. Its values stay as they were:
     * a slot's value is read only when its bit says it sent (resetting every value to the
     * identity cost BFS's sparse supersteps more than their work: docs/measure/notebook.md).
     */
    void startStep(long superstep) {
        int parity = (int) ((superstep + 1) & 1);
        if (dirty[parity]) {
            clearSentBits(outContainer[parity]);
            dirty[parity] = false;
        }
        sending = 0;
    }

    private void clearSentBits(MemorySegment container) {
        long n = slots[index];
        container.asSlice(BroadcastLayout.sentBits(n), 8 * BroadcastLayout.words(n)).fill((byte) 0);
    }

    /**
     * Local vertex {@code local} sends {@code bits} (a double's raw bits or a long) along its
     * out-edges; returns how many messages that stands for: its out-degree.
     */
    int send(long superstep, int local, long bits) {
        int slot = mySlot[local];
        if (slot < 0) {
            return 0;
        }
        if (oneValue) {
            if (sending == 0) {
                firstSent = bits;
            } else if (bits != firstSent) {
                throw new IllegalStateException("the program declares Declaration.sameValueEachSuperstep, but in superstep " + superstep
                        + " one vertex sent " + firstSent + " (raw bits) and vertex " + (from + local) + " sent " + bits);
            }
        }
        MemorySegment out = outContainer[(int) ((superstep + 1) & 1)];
        BroadcastLayout.setValue(out, slot, bits);
        long word = BroadcastLayout.sentBits(slots[index]) + 8L * (slot >>> 6);
        out.set(ValueLayout.JAVA_LONG_UNALIGNED, word, out.get(ValueLayout.JAVA_LONG_UNALIGNED, word) | 1L << slot);
        sending++;
        return degree[local];
    }

    /** What local vertex {@code local} sent this superstep (it did, and has out-edges). */
    long sentValue(long superstep, int local) {
        return BroadcastLayout.value(outContainer[(int) ((superstep + 1) & 1)], mySlot[local]);
    }

    /**
     * After compute: dense, writes the outgoing container; sparse (the caller pushed the
     * values through the mailboxes), clears the sent bits and writes only the header, which
     * tells receivers there is nothing to gather.
     */
    void publish(long superstep, boolean dense) {
        int parity = (int) ((superstep + 1) & 1);
        MemorySegment out = outContainer[parity];
        long n = slots[index];
        if (dense && oneValue) { // receivers need who sent, not what: every sender sent the header's first value
            BroadcastLayout.setHeader(out, n, sending, sending > 0 ? firstSent : 0);
            batch.write(outbox, BroadcastLayout.container(n, superstep + 1), BroadcastLayout.HEADER);
            batch.write(outbox, BroadcastLayout.container(n, superstep + 1) + BroadcastLayout.sentBits(n), 8 * BroadcastLayout.words(n));
            dirty[parity] = true;
        } else if (dense) {
            BroadcastLayout.setHeader(out, n, sending, 0);
            batch.write(outbox, BroadcastLayout.container(n, superstep + 1), BroadcastLayout.containerBytes(n));
            dirty[parity] = true;
        } else {
            clearSentBits(out);
            BroadcastLayout.setHeader(out, n, 0, 0);
            batch.write(outbox, BroadcastLayout.container(n, superstep + 1), BroadcastLayout.HEADER);
        }
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
        dirty[(int) (superstep & 1)] = true;
        batch.write(outbox, BroadcastLayout.container(slots[index], superstep), BroadcastLayout.containerBytes(slots[index]));
        batch.join();
    }

    /**
     * Reads every partition's values of the previous superstep and combines them along the
     * in-edges: {@code combined[u]} (raw 8-byte values) and bit u of {@code hasMessage} for
     * each local vertex u. Headers first: a partition that sent nothing (or pushed instead)
     * is not read further, and if none sent, nothing is combined. With {@code accepting}
     * (bit u: local vertex u accepts messages; null: every vertex does) only the vertices
     * that accept are combined.
     */
    void gather(long superstep, long[] combined, long[] hasMessage, long[] accepting) {
        Arrays.fill(hasMessage, 0);
        if (superstep == 0) {
            return;
        }
        int parity = (int) (superstep & 1);
        for (int j = 0; j < partitions; j++) {
            if (j != index) {
                batch.read(inbox[j], BroadcastLayout.container(slots[j], superstep), BroadcastLayout.HEADER);
            }
        }
        batch.join();
        boolean anySent = false;
        boolean everySlotSent = true;
        long agreed = 0; // with oneValue: the first publishing partition's value, which every other must have sent too
        int agreedBy = -1;
        for (int j = 0; j < partitions; j++) {
            MemorySegment c = inContainer[parity][j];
            long n = slots[j];
            long count = BroadcastLayout.senders(c);
            if (BroadcastLayout.slots(c) != n || count < 0 || count > n) {
                throw new IllegalStateException("broadcast " + j + "->" + index + " claims " + BroadcastLayout.slots(c) + " slots and "
                        + count + " senders, expected " + n + " slots");
            }
            published[j] = count > 0;
            if (oneValue && count > 0 && anySent && BroadcastLayout.first(c) != agreed) {
                throw new IllegalStateException("the program declares Declaration.sameValueEachSuperstep, but in superstep " + (superstep - 1)
                        + " partition " + agreedBy + " sent " + agreed + " (raw bits) and partition " + j + " sent " + BroadcastLayout.first(c));
            }
            if (count > 0 && !anySent) {
                agreed = BroadcastLayout.first(c);
                agreedBy = j;
            }
            anySent |= count > 0;
            everySlotSent &= count == n;
            if (count > 0 && j != index && oneValue) {
                batch.read(inbox[j], BroadcastLayout.container(n, superstep) + BroadcastLayout.sentBits(n), 8 * BroadcastLayout.words(n));
            } else if (count > 0 && j != index) {
                batch.read(inbox[j], BroadcastLayout.container(n, superstep) + BroadcastLayout.HEADER, BroadcastLayout.containerBytes(n) - BroadcastLayout.HEADER);
            }
        }
        if (!anySent) {
            return;
        }
        batch.join();
        agreedBits = agreed;
        for (int j = 0; j < partitions; j++) {
            MemorySegment c = inContainer[parity][j];
            long n = slots[j];
            if (!published[j]) {
                Arrays.fill(sent, base[j] >>> 6, base[j + 1] >>> 6, 0);
                if (blended) {
                    Arrays.fill(gatheredDoubles, base[j], base[j + 1], doubles.identity());
                }
                continue;
            }
            boolean everySent = BroadcastLayout.senders(c) == n;
            if (everySent) {
                Arrays.fill(sent, base[j] >>> 6, base[j + 1] >>> 6, -1L);
            } else {
                MemorySegment.copy(c, ValueLayout.JAVA_LONG_UNALIGNED, BroadcastLayout.sentBits(n), sent, base[j] >>> 6, (int) BroadcastLayout.words(n));
            }
            if (oneValue) {
                // no values: every sender sent agreedBits
            } else if (blended && !everySent) {
                copyBlended(c, base[j], (int) n);
            } else if (doubles != null) {
                MemorySegment.copy(c, ValueLayout.JAVA_DOUBLE_UNALIGNED, BroadcastLayout.values(), gatheredDoubles, base[j], (int) n);
            } else {
                MemorySegment.copy(c, ValueLayout.JAVA_LONG_UNALIGNED, BroadcastLayout.values(), gatheredLongs, base[j], (int) n);
            }
        }
        if (oneValue) {
            markFirstSenders(combined, hasMessage, accepting);
        } else if (everySlotSent && accepting == null && !plusWeight) {
            System.arraycopy(hasInEdges, 0, hasMessage, 0, hasMessage.length);
            if (doubles != null) {
                combineAll(combined);
            } else {
                combineAllLongs(combined);
            }
        } else if (blended) {
            combineBlended(combined, hasMessage, accepting);
        } else if (doubles != null) {
            combineSent(combined, hasMessage, accepting);
        } else {
            combineSentLongs(combined, hasMessage, accepting);
        }
    }

    /**
     * The hot loop, when every slot sent: one random load per in-edge. SUM, PageRank's
     * combiner, has a loop of its own with the addition in line, which the JIT unrolls; MIN
     * and MAX go through the combiner.
     */
    private void combineAll(long[] combined) {
        int[] start = inStart;
        int[] source = inSource;
        double[] values = gatheredDoubles;
        if (doubles == DoubleCombiner.SUM) {
            for (int u = 0; u < size; u++) {
                double acc = 0;
                for (int e = start[u], end = start[u + 1]; e < end; e++) {
                    acc += values[source[e]];
                }
                combined[u] = Double.doubleToRawLongBits(acc);
            }
            return;
        }
        DoubleCombiner c = doubles;
        for (int u = 0; u < size; u++) {
            double acc = c.identity();
            for (int e = start[u], end = start[u + 1]; e < end; e++) {
                acc = c.combine(acc, values[source[e]]);
            }
            combined[u] = Double.doubleToRawLongBits(acc);
        }
    }

    private void combineAllLongs(long[] combined) {
        LongCombiner c = longs;
        for (int u = 0; u < size; u++) {
            long acc = c.identity();
            for (int e = inStart[u], end = inStart[u + 1]; e < end; e++) {
                acc = c.combine(acc, gatheredLongs[inSource[e]]);
            }
            combined[u] = acc;
        }
    }

    /**
     * When every sender sent the same value (a bottom-up BFS step): a vertex that accepts
     * has the value as its message if any in-neighbour sent, and its first sending
     * in-neighbour ends the search. The vertices that accept are found 64 at a time.
     */
    private void markFirstSenders(long[] combined, long[] hasMessage, long[] accepting) {
        long value = doubles != null
                ? Double.doubleToRawLongBits(doubles.combine(doubles.identity(), Double.longBitsToDouble(agreedBits)))
                : longs.combine(longs.identity(), agreedBits); // as combining it alone would give
        int[] start = inStart;
        int[] source = inSource;
        long[] sentBits = sent;
        for (int w = 0, words = (size + 63) >>> 6; w < words; w++) {
            long candidates = accepting == null ? -1L : accepting[w];
            if (w == words - 1 && (size & 63) != 0) {
                candidates &= (1L << size) - 1; // no vertices past the partition's last
            }
            long found = 0;
            for (; candidates != 0; candidates &= candidates - 1) {
                int u = (w << 6) + Long.numberOfTrailingZeros(candidates);
                for (int e = start[u], end = start[u + 1]; e < end; e++) {
                    int s = source[e];
                    if ((sentBits[s >>> 6] & 1L << s) != 0) {
                        combined[u] = value;
                        found |= 1L << u;
                        break;
                    }
                }
            }
            hasMessage[w] = found;
        }
    }

    /**
     * When some slots sent nothing: a vertex has messages only if one of its in-neighbours
     * sent. Vertices that do not accept messages are skipped, their in-edges unread.
     */
    private void combineSent(long[] combined, long[] hasMessage, long[] accepting) {
        DoubleCombiner c = doubles;
        for (int u = 0; u < size; u++) {
            if (accepting != null && (accepting[u >>> 6] & 1L << u) == 0) {
                continue;
            }
            double acc = c.identity();
            boolean any = false;
            for (int e = inStart[u], end = inStart[u + 1]; e < end; e++) {
                int s = inSource[e];
                if ((sent[s >>> 6] & 1L << s) != 0) {
                    double value = gatheredDoubles[s];
                    if (plusWeight) { // sends that add the edge's weight: SSSP's relaxation
                        value += inWeight == null ? 1 : inWeight.get(e);
                    }
                    acc = c.combine(acc, value);
                    any = true;
                }
            }
            if (any) {
                combined[u] = Double.doubleToRawLongBits(acc);
                hasMessage[u >>> 6] |= 1L << u;
            }
        }
    }

    /**
     * Copies partition j's values from its container {@code c} into the gathered array from
     * slot {@code at}, the combiner's identity where the slot did not send (its value there
     * is whatever it sent last). Every worker of the process writes the same value into a
     * slot, so the shared array is the same whichever worker wrote it last.
     */
    private void copyBlended(MemorySegment c, int at, int n) {
        long identity = Double.doubleToRawLongBits(doubles.identity());
        long values = BroadcastLayout.values();
        long[] sentBits = sent;
        for (int i = 0; i < n; i++) {
            int slot = at + i;
            long kept = -(sentBits[slot >>> 6] >>> slot & 1); // all ones where the slot sent
            long raw = c.get(ValueLayout.JAVA_LONG_UNALIGNED, values + 8L * i);
            gatheredDoubles[slot] = Double.longBitsToDouble(raw & kept | identity & ~kept);
        }
    }

    /**
     * {@link #combineSent} over values where a slot that did not send holds the identity:
     * every in-edge is combined without asking whether its source sent, which is a branch
     * the processor guesses wrong at random where part of the vertices send, and each wrong
     * guess waits for the load behind it. A vertex whose combined value is not the identity
     * heard from a sender; only one whose value is the identity has its in-neighbours' sent
     * bits read, as a sender may have sent the identity itself (reading them for every edge
     * cost SSSP's dense supersteps 5-10% more: docs/measure/notebook.md).
     */
    private void combineBlended(long[] combined, long[] hasMessage, long[] accepting) {
        DoubleCombiner c = doubles;
        double[] values = gatheredDoubles;
        int[] start = inStart;
        int[] source = inSource;
        long[] sentBits = sent;
        long identity = Double.doubleToRawLongBits(c.identity());
        for (int u = 0; u < size; u++) {
            if (accepting != null && (accepting[u >>> 6] & 1L << u) == 0) {
                continue;
            }
            double acc = c.identity();
            int first = start[u];
            int end = start[u + 1];
            for (int e = first; e < end; e++) {
                double value = values[source[e]];
                if (plusWeight) { // the identity plus a weight is the identity (blended says so)
                    value += inWeight == null ? 1 : inWeight.get(e);
                }
                acc = c.combine(acc, value);
            }
            long bits = Double.doubleToRawLongBits(acc);
            if (bits != identity || anySent(sentBits, source, first, end)) { // a value other than the identity came from a sender
                combined[u] = bits;
                hasMessage[u >>> 6] |= 1L << u;
            }
        }
    }

    /** Whether any of {@code source[first..end)} sent; asked only where the combined value says nothing (it is the identity). */
    private static boolean anySent(long[] sentBits, int[] source, int first, int end) {
        for (int e = first; e < end; e++) {
            int s = source[e];
            if ((sentBits[s >>> 6] & 1L << s) != 0) {
                return true;
            }
        }
        return false;
    }

    private void combineSentLongs(long[] combined, long[] hasMessage, long[] accepting) {
        LongCombiner c = longs;
        for (int u = 0; u < size; u++) {
            if (accepting != null && (accepting[u >>> 6] & 1L << u) == 0) {
                continue;
            }
            long acc = c.identity();
            boolean any = false;
            for (int e = inStart[u], end = inStart[u + 1]; e < end; e++) {
                int s = inSource[e];
                if ((sent[s >>> 6] & 1L << s) != 0) {
                    acc = c.combine(acc, gatheredLongs[s]);
                    any = true;
                }
            }
            if (any) {
                combined[u] = acc;
                hasMessage[u >>> 6] |= 1L << u;
            }
        }
    }

    @Override
    public void close() {
        obtained.awaitKept(GatherPlan.KEEP_WAIT_NANOS);
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

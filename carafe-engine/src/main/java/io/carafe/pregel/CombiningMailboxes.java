package io.carafe.pregel;

import io.rstore.AllocFlags;
import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One worker's side of {@link Messaging#PUSH} for a program with a combiner, and of
 * {@link Messaging#HYBRID}'s sparse supersteps: its outbox row and inbox column of the
 * mailbox grid ({@link MailboxLayout}). Messages are combined per target vertex as they are
 * sent, then written to the container of their target's partition, at most one per target,
 * and combined again by the receiver in the next superstep. Records are copied as bytes;
 * nothing is allocated per message but when a full container is replaced by one twice its
 * size (rare: a container holds a message per target, or per edge into its partition when
 * that is fewer).
 */
final class CombiningMailboxes implements Mailboxes {
    /** Targets per bucket: 2^18 slots, a block that stays in cache while combined (2^16 measured slower for 8-byte messages). */
    private static final int BUCKET_SHIFT = 18;
    /** Messages a bucket holds before it is combined. */
    private static final int BUCKET_CAPACITY = 1 << 14;

    private final Namespace job;
    private final Mapping directory;
    private final Partitioning partitioning;
    private final int partitions;
    private final int index;
    private final int from;
    private final int size;
    private final Arena arena;
    private final Combiner combiner;
    private final DoubleCombiner doubles; // the combiner when messages are one double: combined as plain doubles
    private final LongCombiner longs;     // likewise for one long
    private final int recordBytes;
    private final long stride; // bytes of a message in a container: target + record

    // outbox containers by [parity][partition], grown by doubling
    private final Mapping[][] outbox;
    private final long[][] outCapacity;
    private final long[] outCount;
    // inbox containers by [parity][partition], re-mapped when a sender moved one
    private final Mapping[][] inbox;
    private final long[][] inAddress;
    private final long[] inCount;
    private final Batch batch = new Batch();

    // inbox, combined: one record per local vertex, and who got one
    private final MemorySegment combined;
    private final long[] hasMessage;
    private final RecordView incoming;
    // outbox, combined: one record per global vertex (identity when untouched) and a bit per vertex
    private MemorySegment outRecords;
    private long[] outTouched;
    private final RecordView identity;
    // propagation blocking: messages wait in buckets by target range, then combine a cache-sized block at a time
    private int[] bucketTarget;
    private MemorySegment bucketRecords;
    private int[] bucketFill;
    private final RecordView into;
    private final RecordView other;

    CombiningMailboxes(Namespace job, Mapping directory, Partitioning partitioning, int index, long vertexCount, RecordLayout messageLayout,
                       Combiner combiner, Arena arena) {
        this.job = job;
        this.directory = directory;
        this.partitioning = partitioning;
        this.partitions = partitioning.partitions();
        this.index = index;
        this.from = partitioning.start(index);
        this.size = partitioning.end(index) - from;
        this.arena = arena;
        this.combiner = combiner;
        this.doubles = combiner instanceof DoubleCombiner d && messageLayout.isSingle(RecordLayout.Type.DOUBLE) ? d : null;
        this.longs = combiner instanceof LongCombiner l && messageLayout.isSingle(RecordLayout.Type.LONG) ? l : null;
        this.recordBytes = messageLayout.bytes();
        this.stride = MailboxLayout.messageBytes(recordBytes);
        this.outbox = new Mapping[2][partitions];
        this.outCapacity = new long[2][partitions];
        this.outCount = new long[partitions];
        this.inbox = new Mapping[2][partitions];
        this.inAddress = new long[2][partitions];
        this.inCount = new long[partitions];
        this.incoming = new RecordView(messageLayout);
        this.identity = RecordView.allocate(messageLayout);
        this.into = new RecordView(messageLayout);
        this.other = new RecordView(messageLayout);
        this.hasMessage = new long[(size + 63) >>> 6];
        combiner.identity(identity);
        this.combined = arena.allocate(Math.max(1, (long) size * recordBytes), 8);
        incoming.wrap(combined, 0);
        outRecords = arena.allocate(Math.max(1, vertexCount * recordBytes), 8);
        for (long t = 0; t < vertexCount; t++) {
            copyRecord(identity.memory(), 0, outRecords, t * recordBytes);
        }
        outTouched = new long[(int) ((vertexCount + 63) >>> 6)];
        int buckets = (int) ((vertexCount + (1L << BUCKET_SHIFT) - 1) >>> BUCKET_SHIFT);
        bucketTarget = new int[buckets * BUCKET_CAPACITY];
        bucketRecords = arena.allocate((long) buckets * BUCKET_CAPACITY * recordBytes, 8);
        bucketFill = new int[buckets];
        into.wrap(outRecords, 0);
        other.wrap(bucketRecords, 0);
    }

    /**
     * Allocates the outbox containers with room for a message per target vertex of each
     * partition, or per edge into it when that is fewer: what most programs send, and what
     * grows when they send more. Names them in this worker's row of the directory; the
     * caller writes it.
     */
    @Override
    public void allocate(long[] edgesInto) {
        for (int j = 0; j < partitions; j++) {
            long targets = partitioning.end(j) - partitioning.start(j);
            long capacity = Math.max(64, Math.min(edgesInto[j], targets));
            for (int parity = 0; parity < 2; parity++) {
                allocateOutbox(j, parity, capacity);
            }
        }
    }

    /** A container of {@code capacity} messages for cell (index, j) of {@code parity}, named in the directory (the caller writes it). */
    private Mapping allocateOutbox(int j, int parity, long capacity) {
        RAddress segment = job.alloc(MailboxLayout.containerBytes(capacity, recordBytes), AllocFlags.GROW);
        Mapping m = segment.map(MapFlags.NONE);
        outbox[parity][j] = m;
        outCapacity[parity][j] = capacity;
        JobLayout.setCell(directory.segment(), partitions, index, j, parity, segment.address(), capacity);
        return m;
    }

    /**
     * A full container is replaced by one twice its size, holding what the old one held.
     * Receivers read this parity next superstep and find the new container in the
     * directory then. The old segment stays in the job's namespace until the job ends:
     * a receiver may still have it mapped.
     */
    private void growOutbox(int j, int parity) {
        Mapping old = outbox[parity][j];
        long capacity = outCapacity[parity][j] * 2;
        Mapping grown = allocateOutbox(j, parity, capacity);
        MemorySegment.copy(old.segment(), MailboxLayout.HEADER, grown.segment(), MailboxLayout.HEADER, outCount[j] * stride);
        old.close();
        directory.write(JobLayout.cellPart(partitions, index, j, parity), 16);
    }

    /**
     * Maps the inbox column's containers of both parities, once every worker has named its
     * outboxes: mapping is setup work (tens of MB of local memory on a large graph), not a
     * superstep's.
     */
    @Override
    public void join() {
        directory.read(JobLayout.gridOffset(partitions), JobLayout.gridBytes(partitions));
        for (int parity = 0; parity < 2; parity++) {
            for (int j = 0; j < partitions; j++) {
                mapInbox(parity, j);
            }
        }
    }

    /** Maps the inbox container of cell (j, index) and {@code parity} as the directory (read by the caller) names it, unless it is mapped already. */
    private void mapInbox(int parity, int j) {
        long address = JobLayout.cellAddress(directory.segment(), partitions, j, index, parity);
        if (inbox[parity][j] == null || inAddress[parity][j] != address) {
            if (inbox[parity][j] != null) {
                inbox[parity][j].close();
            }
            inbox[parity][j] = job.raddress(address).map(MapFlags.NONE);
            inAddress[parity][j] = address;
        }
    }

    /**
     * Messages written in the previous superstep: the (superstep mod 2) containers of the
     * inbox column, found through the directory (a sender may have moved one), read
     * header first, then as many messages as each holds.
     */
    @Override
    public void read(long superstep) {
        Arrays.fill(outCount, 0);
        Arrays.fill(hasMessage, 0);
        if (superstep == 0) {
            return;
        }
        int parity = (int) (superstep & 1);
        directory.read(JobLayout.gridOffset(partitions), JobLayout.gridBytes(partitions));
        for (int j = 0; j < partitions; j++) {
            mapInbox(parity, j);
            batch.read(inbox[parity][j], 0, MailboxLayout.HEADER);
        }
        batch.join();
        for (int j = 0; j < partitions; j++) {
            MemorySegment container = inbox[parity][j].segment();
            inCount[j] = MailboxLayout.count(container);
            long room = (container.byteSize() - MailboxLayout.HEADER) / stride;
            if (inCount[j] < 0 || inCount[j] > room) {
                throw new IllegalStateException("mailbox " + j + "->" + index + " claims " + inCount[j] + " messages, room for " + room);
            }
            if (inCount[j] > 0) {
                batch.read(inbox[parity][j], MailboxLayout.HEADER, inCount[j] * stride);
            }
        }
        batch.join();
        combineInbox(parity);
    }

    private void combineInbox(int parity) {
        for (int j = 0; j < partitions; j++) {
            MemorySegment container = inbox[parity][j].segment();
            for (long i = 0, at = MailboxLayout.HEADER; i < inCount[j]; i++, at += stride) {
                int target = container.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
                long bit = 1L << target;
                long slot = (long) target * recordBytes;
                if ((hasMessage[target >>> 6] & bit) == 0) {
                    hasMessage[target >>> 6] |= bit;
                    copyRecord(container, at + MailboxLayout.TARGET, combined, slot);
                } else {
                    combineRecord(combined, slot, container, at + MailboxLayout.TARGET);
                }
            }
        }
    }

    /** Bit u set when local vertex u has messages this superstep. */
    @Override
    public long[] messageBits() {
        return hasMessage;
    }

    private boolean hasMessages(int local) {
        return (hasMessage[local >>> 6] & (1L << local)) != 0;
    }

    @Override
    public int messageCount(int local) {
        return hasMessages(local) ? 1 : 0;
    }

    /** The combined message of local vertex {@code local} (or the identity): there is one, whatever {@code i}. */
    @Override
    public RecordView message(int local, int i) {
        if (!hasMessages(local)) {
            return identity;
        }
        incoming.moveTo((long) local * recordBytes);
        return incoming;
    }

    /** The combined messages of one double or one long, as raw memory: local vertex u's at index u. */
    MemorySegment combined() {
        return combined;
    }

    /**
     * {@link Messaging#HYBRID}: adds what arrived here (pushed by sparse partitions) to what
     * was gathered from dense ones, by local vertex: {@code values} holds 8-byte messages as
     * raw bits (doubles or longs), {@code has} who got one.
     */
    void mergeInto(long[] values, long[] has) {
        for (int w = 0; w < hasMessage.length; w++) {
            for (long rest = hasMessage[w]; rest != 0; rest &= rest - 1) {
                long bit = rest & -rest;
                int u = (w << 6) + Long.numberOfTrailingZeros(rest);
                long bits = combined.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, u);
                if ((has[w] & bit) != 0) {
                    bits = doubles != null
                            ? Double.doubleToRawLongBits(doubles.combine(Double.longBitsToDouble(values[u]), Double.longBitsToDouble(bits)))
                            : longs.combine(values[u], bits);
                }
                values[u] = bits;
                has[w] |= bit;
            }
        }
    }

    /**
     * The message is appended to its target range's bucket (sequential writes); a full
     * bucket is combined into its block of slots, which fits in cache. Combining straight
     * into the slots was a cache miss per message and took three quarters of a PageRank
     * superstep on a 4.8M-vertex graph.
     */
    @Override
    public void deliver(long superstep, int target, MemorySegment record, long recordAt) {
        int b = target >>> BUCKET_SHIFT;
        int at = b * BUCKET_CAPACITY + bucketFill[b];
        bucketTarget[at] = target;
        copyRecord(record, recordAt, bucketRecords, (long) at * recordBytes);
        if (++bucketFill[b] == BUCKET_CAPACITY) {
            combineBucket(b);
        }
    }

    /** Encodes and writes the ((superstep + 1) mod 2) containers of the outbox row, all posted together. */
    @Override
    public void write(long superstep) {
        for (int b = 0; b < bucketFill.length; b++) {
            combineBucket(b);
        }
        int parity = (int) ((superstep + 1) & 1);
        for (int j = 0; j < partitions; j++) {
            outCount[j] = drainCombined(j, parity, partitioning.start(j), partitioning.end(j));
            MemorySegment container = outbox[parity][j].segment();
            MailboxLayout.setCount(container, outCount[j]);
            batch.write(outbox[parity][j], 0, MailboxLayout.HEADER + outCount[j] * stride);
        }
        batch.join();
    }

    /**
     * For a checkpoint after superstep {@code superstep - 1}: what this worker sent for
     * {@code superstep} to read, one section per partition (its container as written:
     * header and messages).
     */
    @Override
    public java.util.List<MemorySegment> sent(long superstep) {
        int parity = (int) (superstep & 1);
        java.util.List<MemorySegment> sections = new java.util.ArrayList<>(partitions);
        for (int j = 0; j < partitions; j++) {
            MemorySegment container = outbox[parity][j].segment();
            sections.add(container.asSlice(0, MailboxLayout.HEADER + MailboxLayout.count(container) * stride));
        }
        return sections;
    }

    /** Restarting from a checkpoint: writes {@link #sent}'s sections back into this job's containers, for {@code superstep} to read. */
    @Override
    public void resend(long superstep, java.util.List<MemorySegment> sections) {
        if (sections.size() != partitions) {
            throw new IllegalStateException("the checkpoint holds messages for " + sections.size() + " partitions, the job has " + partitions);
        }
        int parity = (int) (superstep & 1);
        for (int j = 0; j < partitions; j++) {
            MemorySegment saved = sections.get(j);
            long count = MailboxLayout.count(saved);
            outCount[j] = 0;
            while (count > outCapacity[parity][j]) {
                growOutbox(j, parity);
            }
            MemorySegment.copy(saved, 0, outbox[parity][j].segment(), 0, saved.byteSize());
            batch.write(outbox[parity][j], 0, saved.byteSize());
        }
        batch.join();
    }

    private void combineBucket(int b) {
        int start = b * BUCKET_CAPACITY;
        int end = start + bucketFill[b];
        for (int i = start; i < end; i++) {
            int t = bucketTarget[i];
            combineRecord(outRecords, (long) t * recordBytes, bucketRecords, (long) i * recordBytes);
            outTouched[t >>> 6] |= 1L << t;
        }
        bucketFill[b] = 0;
    }

    /**
     * Encodes the combined messages for targets in {@code [start, end)}, in ascending
     * order (so the receiver combines them sequentially), and resets their slots.
     */
    private long drainCombined(int j, int parity, int start, int end) {
        long count = 0;
        for (int word = start >>> 6; word <= (end - 1) >>> 6 && end > start; word++) {
            long bits = outTouched[word];
            if (bits == 0) {
                continue;
            }
            int base = word << 6;
            long keep = 0; // bits of this word outside [start, end) belong to a neighbouring partition
            for (long rest = bits; rest != 0; rest &= rest - 1) {
                int t = base + Long.numberOfTrailingZeros(rest);
                if (t < start || t >= end) {
                    keep |= rest & -rest;
                    continue;
                }
                if (count == outCapacity[parity][j]) {
                    outCount[j] = count;
                    growOutbox(j, parity);
                }
                MemorySegment container = outbox[parity][j].segment();
                long at = MailboxLayout.messageOffset(count++, recordBytes);
                container.set(ValueLayout.JAVA_INT_UNALIGNED, at, t);
                copyRecord(outRecords, (long) t * recordBytes, container, at + MailboxLayout.TARGET);
                copyRecord(identity.memory(), 0, outRecords, (long) t * recordBytes);
            }
            outTouched[word] = keep;
        }
        return count;
    }

    /** Copies one message record; the common 8-byte record as one long. */
    private void copyRecord(MemorySegment src, long srcAt, MemorySegment dst, long dstAt) {
        if (recordBytes == 8) {
            dst.set(ValueLayout.JAVA_LONG_UNALIGNED, dstAt, src.get(ValueLayout.JAVA_LONG_UNALIGNED, srcAt));
        } else {
            MemorySegment.copy(src, srcAt, dst, dstAt, recordBytes);
        }
    }

    /** {@code into[intoAt] = into[intoAt] ⊕ msg[msgAt]}: built-in combiners on plain doubles and longs, others through flyweights. */
    private void combineRecord(MemorySegment intoMemory, long intoAt, MemorySegment msg, long msgAt) {
        if (doubles != null) {
            intoMemory.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, intoAt, doubles.combine(intoMemory.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, intoAt),
                    msg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, msgAt)));
        } else if (longs != null) {
            intoMemory.set(ValueLayout.JAVA_LONG_UNALIGNED, intoAt, longs.combine(intoMemory.get(ValueLayout.JAVA_LONG_UNALIGNED, intoAt),
                    msg.get(ValueLayout.JAVA_LONG_UNALIGNED, msgAt)));
        } else {
            combiner.combine(into.wrap(intoMemory, intoAt), other.wrap(msg, msgAt));
        }
    }

    @Override
    public void close() {
        for (Mapping[] row : new Mapping[][] {inbox[0], inbox[1], outbox[0], outbox[1]}) {
            for (Mapping m : row) {
                if (m != null) {
                    m.close();
                }
            }
        }
    }
}

package io.carafe.pregel;

import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.memory.NativeMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * One worker's side of {@link Messaging#PUSH} for a program with a combiner, and of
 * {@link Messaging#HYBRID}'s sparse supersteps. Messages are combined per target vertex as
 * they are sent; after compute, the one message per target goes through the pages
 * ({@link MailPages}) of its target's partition, in ascending target order, and the receiver
 * combines them again as it streams the pages. Records are copied as bytes; nothing is
 * allocated per message.
 */
final class CombiningMailboxes extends PagedMailboxes {
    /** Targets per bucket: 2^18 slots, a block that stays in cache while combined (2^16 measured slower for 8-byte messages). */
    private static final int BUCKET_SHIFT = 18;
    /** Messages a bucket holds before it is combined. */
    private static final int BUCKET_CAPACITY = 1 << 14;

    private final Partitioning partitioning;
    private final int partitions;
    private final int from;
    private final int size;
    private final Combiner combiner;
    private final DoubleCombiner doubles; // the combiner when messages are one double: combined as plain doubles
    private final LongCombiner longs;     // likewise for one long
    private final int recordBytes;
    private final long stride; // bytes of a message in a page: target + record
    private final MailPages.PageVisitor combining = this::combinePage;

    // inbox, combined: one record per local vertex, and who got one
    private final MemorySegment combined;
    private final long[] hasMessage;
    private final RecordView incoming;
    // outbox, combined: one record per global vertex, valid where its bit is set (the first message written, the rest combined in)
    private MemorySegment outRecords;
    private long[] outTouched;
    private final RecordView identity;
    // propagation blocking: messages wait in buckets by target range, then combine a cache-sized block at a time
    private int[] bucketTarget;
    private MemorySegment bucketRecords;
    private int[] bucketFill;
    private final RecordView into;
    private final RecordView other;

    /** {@code pageBytes}: the size of a page, {@link MailboxLayout#PAGE_BYTES} in a job (tests take smaller ones). */
    CombiningMailboxes(Namespace job, Mapping directory, Partitioning partitioning, int index, long vertexCount, RecordLayout messageLayout,
                       Combiner combiner, Arena arena, long pageBytes) {
        super(new MailPages(job, directory, partitioning.partitions(), index, messageLayout.bytes(), pageBytes));
        this.partitioning = partitioning;
        this.partitions = partitioning.partitions();
        this.from = partitioning.start(index);
        this.size = partitioning.end(index) - from;
        this.combiner = combiner;
        this.doubles = combiner instanceof DoubleCombiner d && messageLayout.isSingle(RecordLayout.Type.DOUBLE) ? d : null;
        this.longs = combiner instanceof LongCombiner l && messageLayout.isSingle(RecordLayout.Type.LONG) ? l : null;
        this.recordBytes = messageLayout.bytes();
        this.stride = MailboxLayout.messageBytes(recordBytes);
        this.incoming = new RecordView(messageLayout);
        this.identity = RecordView.allocate(messageLayout);
        this.into = new RecordView(messageLayout);
        this.other = new RecordView(messageLayout);
        this.hasMessage = new long[(size + 63) >>> 6];
        combiner.identity(identity);
        // the kernel's zeroed (huge) pages: a graph's worth of records, made on the control path at the speed of memory
        this.combined = NativeMemory.allocate(arena, Math.max(1, (long) size * recordBytes));
        incoming.wrap(combined, 0);
        outRecords = NativeMemory.allocate(arena, Math.max(1, vertexCount * recordBytes)); // a record is valid once touched
        outTouched = new long[(int) ((vertexCount + 63) >>> 6)];
        int buckets = (int) ((vertexCount + (1L << BUCKET_SHIFT) - 1) >>> BUCKET_SHIFT);
        bucketTarget = new int[buckets * BUCKET_CAPACITY];
        bucketRecords = arena.allocate((long) buckets * BUCKET_CAPACITY * recordBytes, 8);
        bucketFill = new int[buckets];
        into.wrap(outRecords, 0);
        other.wrap(bucketRecords, 0);
    }

    /** Messages written in the previous superstep, combined as their pages stream through. */
    @Override
    public void read(long superstep) {
        startWriting(superstep);
        Arrays.fill(hasMessage, 0);
        if (superstep == 0) {
            return;
        }
        int parity = (int) (superstep & 1);
        pages.readLists(parity);
        for (int j = 0; j < partitions; j++) {
            pages.forEachPage(parity, j, combining);
        }
    }

    private void combinePage(MemorySegment page, long messages) {
        for (long i = 0, at = 0; i < messages; i++, at += stride) {
            int target = page.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
            if (target < 0 || target >= size) {
                throw new IllegalStateException("a message to vertex " + (target + from) + " arrived at the partition of vertices " + from + ".."
                        + (from + size - 1));
            }
            long bit = 1L << target;
            long slot = (long) target * recordBytes;
            if ((hasMessage[target >>> 6] & bit) == 0) {
                hasMessage[target >>> 6] |= bit;
                copyRecord(page, at + MailboxLayout.TARGET, combined, slot);
            } else {
                combineRecord(combined, slot, page, at + MailboxLayout.TARGET);
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

    /** Writes the combined messages into the ((superstep + 1) mod 2) pages of their partitions, and the page lists. */
    @Override
    public void write(long superstep) {
        for (int b = 0; b < bucketFill.length; b++) {
            combineBucket(b);
        }
        int parity = writeParity(superstep);
        for (int j = 0; j < partitions; j++) {
            drainCombined(j, parity, partitioning.start(j), partitioning.end(j));
        }
        pages.publish(parity);
    }

    private void combineBucket(int b) {
        int start = b * BUCKET_CAPACITY;
        int end = start + bucketFill[b];
        for (int i = start; i < end; i++) {
            int t = bucketTarget[i];
            long bit = 1L << t;
            if ((outTouched[t >>> 6] & bit) != 0) {
                combineRecord(outRecords, (long) t * recordBytes, bucketRecords, (long) i * recordBytes);
            } else { // the first message for t this superstep: its record starts as that message
                copyRecord(bucketRecords, (long) i * recordBytes, outRecords, (long) t * recordBytes);
                outTouched[t >>> 6] |= bit;
            }
        }
        bucketFill[b] = 0;
    }

    /**
     * Sends the combined messages for targets in {@code [start, end)}, partition j's, in
     * ascending order (so the receiver combines them sequentially), and resets their slots.
     */
    private void drainCombined(int j, int parity, int start, int end) {
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
                pages.append(parity, j, t, outRecords, (long) t * recordBytes); // its record is written afresh by its next first message
            }
            outTouched[word] = keep;
        }
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
}

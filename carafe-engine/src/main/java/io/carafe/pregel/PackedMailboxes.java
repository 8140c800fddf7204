package io.carafe.pregel;

import io.rstore.Mapping;
import io.rstore.Namespace;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * {@link Mailboxes} for messages that are not combined: every message goes through the
 * pages ({@link MailPages}) as it is sent. The receiver streams the pages twice: counting
 * the messages per target vertex, then copying the records into one array grouped by
 * target. A message costs its record plus 4 bytes in RStore for each parity it occupies, and
 * its record in the receiver while its vertices compute.
 */
final class PackedMailboxes extends PagedMailboxes {
    /** The grouped array is allocated in multiples of this, so a superstep with a few more messages than any before rarely reallocates it. */
    private static final long GROUPED_ROUNDING = 1 << 20;

    private final Partitioning partitioning;
    private final int partitions;
    private final int index;
    private final int from;
    private final int size;
    private final int recordBytes;

    // what arrived, grouped by local vertex (a counting sort over the pages), and who got any
    private final int[] messageStart;
    private final int[] messageNext;
    private final long[] hasMessage;
    private Arena groupedArena;
    private MemorySegment grouped = MemorySegment.NULL;
    private final RecordView incoming;
    private final MailPages.PageVisitor counting = this::count;
    private final MailPages.PageVisitor grouping = this::group;

    /** {@code pageBytes}: the size of a page, {@link MailboxLayout#PAGE_BYTES} in a job (tests take smaller ones). */
    PackedMailboxes(Namespace job, Mapping directory, Partitioning partitioning, int index, RecordLayout messageLayout, long pageBytes) {
        super(new MailPages(job, directory, partitioning.partitions(), index, messageLayout.bytes(), pageBytes));
        this.partitioning = partitioning;
        this.partitions = partitioning.partitions();
        this.index = index;
        this.from = partitioning.start(index);
        this.size = partitioning.end(index) - from;
        this.recordBytes = messageLayout.bytes();
        this.messageStart = new int[size + 1];
        this.messageNext = new int[size];
        this.hasMessage = new long[(size + 63) >>> 6];
        this.incoming = new RecordView(messageLayout);
    }

    @Override
    public void read(long superstep) {
        startWriting(superstep);
        Arrays.fill(hasMessage, 0);
        Arrays.fill(messageStart, 0);
        if (superstep == 0) {
            return;
        }
        int parity = (int) (superstep & 1);
        long total = pages.readLists(parity);
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("partition " + index + " received " + total + " messages in one superstep; use more workers or a combiner");
        }
        for (int j = 0; j < partitions; j++) {
            pages.forEachPage(parity, j, counting);
        }
        for (int v = 0; v < size; v++) {
            if (messageStart[v + 1] > 0) {
                hasMessage[v >>> 6] |= 1L << v;
            }
            messageStart[v + 1] += messageStart[v];
        }
        ensureGrouped(total * recordBytes);
        System.arraycopy(messageStart, 0, messageNext, 0, size);
        for (int j = 0; j < partitions; j++) {
            pages.forEachPage(parity, j, grouping);
        }
        incoming.wrap(grouped, 0);
    }

    private void count(MemorySegment page, long messages) {
        long stride = MailboxLayout.messageBytes(recordBytes);
        for (long i = 0, at = 0; i < messages; i++, at += stride) {
            int target = page.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
            if (target < 0 || target >= size) {
                throw new IllegalStateException("a message to vertex " + (target + from) + " arrived at partition " + index + ", which holds "
                        + from + ".." + (from + size - 1));
            }
            messageStart[target + 1]++;
        }
    }

    private void group(MemorySegment page, long messages) {
        long stride = MailboxLayout.messageBytes(recordBytes);
        for (long i = 0, at = 0; i < messages; i++, at += stride) {
            int target = page.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
            long to = (long) messageNext[target]++ * recordBytes;
            if (recordBytes == 8) {
                grouped.set(ValueLayout.JAVA_LONG_UNALIGNED, to, page.get(ValueLayout.JAVA_LONG_UNALIGNED, at + MailboxLayout.TARGET));
            } else {
                MemorySegment.copy(page, at + MailboxLayout.TARGET, grouped, to, recordBytes);
            }
        }
    }

    /** Room for {@code bytes} of grouped records: the old array is let go first (its messages are read), then one of the size needed. */
    private void ensureGrouped(long bytes) {
        if (bytes <= grouped.byteSize()) {
            return;
        }
        if (groupedArena != null) {
            groupedArena.close();
        }
        groupedArena = Arena.ofShared();
        grouped = groupedArena.allocate((bytes + GROUPED_ROUNDING - 1) & -GROUPED_ROUNDING, 64);
    }

    @Override
    public long[] messageBits() {
        return hasMessage;
    }

    @Override
    public int messageCount(int local) {
        return messageStart[local + 1] - messageStart[local];
    }

    @Override
    public RecordView message(int local, int i) {
        incoming.moveTo((long) (messageStart[local] + i) * recordBytes);
        return incoming;
    }

    @Override
    public void deliver(long superstep, int target, MemorySegment record, long recordAt) {
        pages.append(writeParity(superstep), partitioning.partitionOf(target), target, record, recordAt);
    }

    /** Writes out the partly filled pages and the ((superstep + 1) mod 2) page lists. */
    @Override
    public void write(long superstep) {
        pages.publish(writeParity(superstep));
    }

    @Override
    public void close() {
        super.close();
        if (groupedArena != null) {
            groupedArena.close();
        }
    }
}

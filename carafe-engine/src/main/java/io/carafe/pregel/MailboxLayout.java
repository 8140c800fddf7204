package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The mailboxes from partition i to partition j for one superstep parity. Superstep k
 * reads the (k mod 2) mailboxes of its inbox column and writes the ((k+1) mod 2) ones of
 * its outbox row, so a superstep's writes never touch what the same superstep reads.
 *
 * <p>Combined messages ({@link CombiningMailboxes}) go in a container, a segment of its
 * own; a sender whose container is full allocates one twice the size and names it in its
 * directory cell; the receivers find it there in the next superstep, when they read that
 * parity. Messages that are not combined ({@link PackedMailboxes}) go in fixed-size pages,
 * each a segment of its own, listed in a page list that the directory cell names; a page
 * list that runs out of room is replaced by one twice its size (8 bytes a page).
 *
 * <pre>
 *  container: | count (long) | 56 pad | message 0 | message 1 | ...
 *  page list: | count (long) | pages (long) | 48 pad | page 0's address (long) | page 1's | ...
 *  page:      | message 0 | message 1 | ... (PAGE_BYTES / messageBytes of them, the last page of a list partly)
 *  message:   | target (int, internal id) | the message record |   packed
 * </pre>
 */
public final class MailboxLayout {
    public static final long HEADER = 64;
    public static final long TARGET = 4;

    private MailboxLayout() {
    }

    /** Bytes of one message with a record of {@code recordBytes}. */
    public static long messageBytes(int recordBytes) {
        return TARGET + recordBytes;
    }

    public static long containerBytes(long capacity, int recordBytes) {
        return (HEADER + Math.max(capacity, 1) * messageBytes(recordBytes) + 63) & -64L;
    }

    public static long count(MemorySegment container) {
        return container.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    public static void setCount(MemorySegment container, long count) {
        container.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, count);
    }

    public static long messageOffset(long i, int recordBytes) {
        return HEADER + i * messageBytes(recordBytes);
    }

    /** Bytes of a page of packed messages. */
    public static final long PAGE_BYTES = 1L << 20;

    public static long pageListBytes(long capacity) {
        return HEADER + 8 * Math.max(capacity, 1);
    }

    public static long pages(MemorySegment pageList) {
        return pageList.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
    }

    public static void setCountAndPages(MemorySegment pageList, long count, long pages) {
        pageList.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, count);
        pageList.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, pages);
    }

    public static long pageAddress(MemorySegment pageList, long k) {
        return pageList.get(ValueLayout.JAVA_LONG_UNALIGNED, HEADER + 8 * k);
    }

    public static void setPageAddress(MemorySegment pageList, long k, long address) {
        pageList.set(ValueLayout.JAVA_LONG_UNALIGNED, HEADER + 8 * k, address);
    }
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The mailboxes from partition i to partition j for one superstep parity: a page list
 * naming fixed-size pages of packed messages, each page a segment of its own
 * ({@link MailPages}). Superstep k reads the (k mod 2) lists of its inbox column and writes
 * the ((k+1) mod 2) ones of its outbox row, so a superstep's writes never touch what the
 * same superstep reads. A list that runs out of room is replaced by one twice its size
 * (8 bytes a page) and named again in the directory cell; the receivers find it there in
 * the next superstep, when they read that parity. A checkpoint holds a partition's
 * messages as one container, whatever the page size.
 *
 * <pre>
 *  page list: | count (long) | pages (long) | 48 pad | page 0's address (long) | page 1's | ...
 *  page:      | message 0 | message 1 | ... (PAGE_BYTES / messageBytes of them, the last page of a list partly)
 *  container: | count (long) | 56 pad | message 0 | message 1 | ...   (a checkpoint's section)
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

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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link Mailboxes} for messages that are not combined: each is a packed record (its
 * target's id and the record's bytes) in a fixed-size page ({@link MailboxLayout#PAGE_BYTES} in a job),
 * a segment of the job's namespace. A sender fills one local page per target partition and
 * writes it out when full, to the next page of its page list for that partition and parity;
 * pages are allocated when a list first needs them and kept for the job, so a superstep
 * that sends no more than one before it allocates nothing. The receiver streams each page
 * through one local page per source partition, twice: counting the messages per target
 * vertex, then copying the records into one array grouped by target.
 *
 * <p>What the mailboxes cost: in RStore, the pages of each parity (message bytes plus 4 bytes
 * of target each, one partly filled page per partition pair); in the worker, the grouped
 * records of the superstep it computes (record bytes each) and two local pages per
 * partition pair. Nothing grows by doubling but the page lists (8 bytes a page).
 */
final class PackedMailboxes implements Mailboxes {
    private static final int INITIAL_LIST_PAGES = 16;
    /** The grouped array is allocated in multiples of this, so a superstep with a few more messages than any before rarely reallocates it. */
    private static final long GROUPED_ROUNDING = 1 << 20;

    private final Namespace job;
    private final Mapping directory;
    private final Partitioning partitioning;
    private final int partitions;
    private final int index;
    private final int from;
    private final int size;
    private final int recordBytes;
    private final long stride;  // bytes of a message in a page: target + record
    private final long pageBytes;
    private final long perPage; // messages a page holds
    private final Arena local = Arena.ofShared(); // the local pages
    private final Batch batch = new Batch();

    // outbox: a local page per target partition; per [parity][partition], the page list and its pages
    private final MemorySegment[] outPage;
    private final Outbox[][] outbox;
    // inbox: a local page per source partition; per [parity][partition], the page list and its pages
    private final MemorySegment[] inPage;
    private final Inbox[][] inbox;
    private final long[] inCount;

    // what arrived, grouped by local vertex (a counting sort over the pages), and who got any
    private final int[] messageStart;
    private final int[] messageNext;
    private final long[] hasMessage;
    private Arena groupedArena;
    private MemorySegment grouped = MemorySegment.NULL;
    private final RecordView incoming;
    private Arena checkpointArena; // the sections of the last sent(), alive until the next
    private final PageVisitor counting = this::count;
    private final PageVisitor grouping = this::group;

    /** {@code pageBytes}: the size of a page, {@link MailboxLayout#PAGE_BYTES} in a job (tests take smaller ones). */
    PackedMailboxes(Namespace job, Mapping directory, Partitioning partitioning, int index, RecordLayout messageLayout, long pageBytes) {
        this.job = job;
        this.directory = directory;
        this.partitioning = partitioning;
        this.partitions = partitioning.partitions();
        this.index = index;
        this.from = partitioning.start(index);
        this.size = partitioning.end(index) - from;
        this.recordBytes = messageLayout.bytes();
        this.stride = MailboxLayout.messageBytes(recordBytes);
        this.pageBytes = pageBytes;
        this.perPage = pageBytes / stride;
        if (perPage < 1) {
            throw new IllegalArgumentException("a page of " + pageBytes + " bytes holds no message of " + stride + " bytes");
        }
        this.outPage = new MemorySegment[partitions];
        this.inPage = new MemorySegment[partitions];
        this.outbox = new Outbox[2][partitions];
        this.inbox = new Inbox[2][partitions];
        for (int j = 0; j < partitions; j++) {
            outPage[j] = local.allocate(pageBytes, 64);
            inPage[j] = local.allocate(pageBytes, 64);
            for (int parity = 0; parity < 2; parity++) {
                outbox[parity][j] = new Outbox();
                inbox[parity][j] = new Inbox();
            }
        }
        this.inCount = new long[partitions];
        this.messageStart = new int[size + 1];
        this.messageNext = new int[size];
        this.hasMessage = new long[(size + 63) >>> 6];
        this.incoming = new RecordView(messageLayout);
    }

    /** One page list of this worker's outbox row: (partition, parity). */
    private static final class Outbox {
        Mapping list;
        long capacity;             // pages the list has room for
        final List<Mapping> pages = new ArrayList<>(); // each on the partition's local page
        long written;              // messages written out to pages this superstep
        int pagesWritten;
        long inPage;               // messages in the local page, not yet written
        long sentCount;            // what the last superstep of this parity sent (for a checkpoint)
        int sentPages;
    }

    /** One page list of this worker's inbox column. */
    private static final class Inbox {
        Mapping list;
        long listAddress;
        Mapping[] pages = new Mapping[0]; // on the partition's local page
        long[] pageAddresses = new long[0];
    }

    /** Page lists of both parities for every partition, named in this worker's row; no pages until a message needs one. */
    @Override
    public void allocate(long[] edgesInto) {
        for (int j = 0; j < partitions; j++) {
            for (int parity = 0; parity < 2; parity++) {
                newList(outbox[parity][j], j, parity, INITIAL_LIST_PAGES);
            }
        }
    }

    /** A page list of {@code capacity} pages for cell (index, j) of {@code parity}, holding the pages {@code o} has, named in the directory. */
    private void newList(Outbox o, int j, int parity, long capacity) {
        RAddress segment = job.alloc(MailboxLayout.pageListBytes(capacity), AllocFlags.GROW);
        Mapping list = segment.map(MapFlags.NONE);
        for (int k = 0; k < o.pages.size(); k++) {
            MailboxLayout.setPageAddress(list.segment(), k, o.pages.get(k).raddress().address());
        }
        if (o.list != null) {
            o.list.close(); // the old list stays in the namespace until the job ends: a receiver may have it mapped
        }
        o.list = list;
        o.capacity = capacity;
        JobLayout.setCell(directory.segment(), partitions, index, j, parity, segment.address(), capacity);
    }

    @Override
    public void join() {
        directory.read(JobLayout.gridOffset(partitions), JobLayout.gridBytes(partitions));
        for (int parity = 0; parity < 2; parity++) {
            for (int j = 0; j < partitions; j++) {
                mapList(parity, j);
            }
        }
    }

    /** Maps the page list of cell (j, index) and {@code parity} as the directory (read by the caller) names it, unless it is mapped already. */
    private void mapList(int parity, int j) {
        Inbox in = inbox[parity][j];
        long address = JobLayout.cellAddress(directory.segment(), partitions, j, index, parity);
        if (in.list == null || in.listAddress != address) {
            if (in.list != null) {
                in.list.close();
            }
            in.list = job.raddress(address).map(MapFlags.NONE);
            in.listAddress = address;
        }
    }

    /**
     * The (superstep mod 2) page lists of the inbox column, found through the directory (a
     * sender may have moved one), then their pages, twice: counting, then grouping.
     */
    @Override
    public void read(long superstep) {
        for (Outbox o : outbox[(int) ((superstep + 1) & 1)]) { // what this superstep writes: read in the last one
            o.written = 0;
            o.pagesWritten = 0;
            o.inPage = 0;
        }
        Arrays.fill(hasMessage, 0);
        Arrays.fill(messageStart, 0);
        if (superstep == 0) {
            return;
        }
        int parity = (int) (superstep & 1);
        directory.read(JobLayout.gridOffset(partitions), JobLayout.gridBytes(partitions));
        for (int j = 0; j < partitions; j++) {
            mapList(parity, j);
            batch.read(inbox[parity][j].list, 0, inbox[parity][j].list.length());
        }
        batch.join();
        long total = 0;
        for (int j = 0; j < partitions; j++) {
            total += mapPages(parity, j);
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("partition " + index + " received " + total + " messages in one superstep; use more workers or a combiner");
        }
        for (int j = 0; j < partitions; j++) {
            forEachPage(parity, j, counting);
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
            forEachPage(parity, j, grouping);
        }
        incoming.wrap(grouped, 0);
    }

    /** Checks the page list of (j, parity) and maps the pages it names that are not mapped yet; returns its message count. */
    private long mapPages(int parity, int j) {
        Inbox in = inbox[parity][j];
        MemorySegment list = in.list.segment();
        long count = MailboxLayout.count(list);
        long pages = MailboxLayout.pages(list);
        long capacity = (list.byteSize() - MailboxLayout.HEADER) / 8;
        if (count < 0 || pages < 0 || pages > capacity || count > pages * perPage || (pages > 0 && count <= (pages - 1) * perPage)) {
            throw new IllegalStateException("mailbox " + j + "->" + index + " claims " + count + " messages in " + pages + " pages of "
                    + perPage + ", its list has room for " + capacity + " pages");
        }
        inCount[j] = count;
        if (pages > in.pages.length) {
            in.pages = Arrays.copyOf(in.pages, (int) pages);
            in.pageAddresses = Arrays.copyOf(in.pageAddresses, (int) pages);
        }
        for (int k = 0; k < pages; k++) {
            long address = MailboxLayout.pageAddress(list, k);
            if (in.pages[k] == null || in.pageAddresses[k] != address) {
                if (in.pages[k] != null) {
                    in.pages[k].close();
                }
                in.pages[k] = job.raddress(address).map(0, pageBytes, MapFlags.NONE, inPage[j]);
                in.pageAddresses[k] = address;
            }
        }
        return count;
    }

    private interface PageVisitor {
        void visit(MemorySegment page, long messages);
    }

    /** Reads the pages of (j, parity) into partition j's local page one after another, handing each to {@code visitor}. */
    private void forEachPage(int parity, int j, PageVisitor visitor) {
        Inbox in = inbox[parity][j];
        for (int k = 0; (long) k * perPage < inCount[j]; k++) {
            long messages = Math.min(perPage, inCount[j] - k * perPage);
            in.pages[k].read(0, messages * stride);
            visitor.visit(inPage[j], messages);
        }
    }

    private void count(MemorySegment page, long messages) {
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
        for (long i = 0, at = 0; i < messages; i++, at += stride) {
            int target = page.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
            copyRecord(page, at + MailboxLayout.TARGET, grouped, (long) messageNext[target]++ * recordBytes);
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
        int j = partitioning.partitionOf(target);
        Outbox o = outbox[(int) ((superstep + 1) & 1)][j];
        if (o.inPage == perPage) {
            writePage(o, j, (int) ((superstep + 1) & 1));
        }
        MemorySegment page = outPage[j];
        long at = o.inPage++ * stride;
        page.set(ValueLayout.JAVA_INT_UNALIGNED, at, target);
        copyRecord(record, recordAt, page, at + MailboxLayout.TARGET);
    }

    /** Writes partition j's local page out to the next page of {@code o}, allocating that page (and a larger list) when the list has none yet. */
    private void writePage(Outbox o, int j, int parity) {
        int k = o.pagesWritten;
        if (k == o.pages.size()) {
            if (k == o.capacity) {
                newList(o, j, parity, 2 * o.capacity);
                directory.write(JobLayout.cellPart(partitions, index, j, parity), 16);
            }
            RAddress page = job.alloc(pageBytes, AllocFlags.GROW);
            o.pages.add(page.map(0, pageBytes, MapFlags.NONE, outPage[j]));
            MailboxLayout.setPageAddress(o.list.segment(), k, page.address());
        }
        o.pages.get(k).write(0, o.inPage * stride);
        o.pagesWritten++;
        o.written += o.inPage;
        o.inPage = 0;
    }

    /** Writes out the partly filled pages and the ((superstep + 1) mod 2) page lists. */
    @Override
    public void write(long superstep) {
        publish((int) ((superstep + 1) & 1));
    }

    private void publish(int parity) {
        for (int j = 0; j < partitions; j++) {
            Outbox o = outbox[parity][j];
            if (o.inPage > 0) {
                writePage(o, j, parity);
            }
            MailboxLayout.setCountAndPages(o.list.segment(), o.written, o.pagesWritten);
            batch.write(o.list, 0, MailboxLayout.pageListBytes(Math.max(1, o.pagesWritten)));
            o.sentCount = o.written;
            o.sentPages = o.pagesWritten;
        }
        batch.join();
    }

    /**
     * For a checkpoint after superstep {@code superstep - 1}: per partition, a count and the
     * messages, read back from the pages (the format of a container, so a checkpoint does
     * not depend on the page size). They stay valid until the next call.
     */
    @Override
    public List<MemorySegment> sent(long superstep) {
        int parity = (int) (superstep & 1);
        if (checkpointArena != null) {
            checkpointArena.close();
        }
        checkpointArena = Arena.ofShared();
        List<MemorySegment> sections = new ArrayList<>(partitions);
        for (int j = 0; j < partitions; j++) {
            Outbox o = outbox[parity][j];
            MemorySegment section = checkpointArena.allocate(MailboxLayout.HEADER + o.sentCount * stride, 64);
            MailboxLayout.setCount(section, o.sentCount);
            for (int k = 0; k < o.sentPages; k++) {
                long messages = Math.min(perPage, o.sentCount - k * perPage);
                o.pages.get(k).read(0, messages * stride);
                MemorySegment.copy(outPage[j], 0, section, MailboxLayout.messageOffset(k * perPage, recordBytes), messages * stride);
            }
            sections.add(section);
        }
        return sections;
    }

    /** Restarting from a checkpoint: {@link #sent}'s messages written into this job's pages, for {@code superstep} to read. */
    @Override
    public void resend(long superstep, List<MemorySegment> sections) {
        if (sections.size() != partitions) {
            throw new IllegalStateException("the checkpoint holds messages for " + sections.size() + " partitions, the job has " + partitions);
        }
        int parity = (int) (superstep & 1);
        for (int j = 0; j < partitions; j++) {
            MemorySegment saved = sections.get(j);
            long count = MailboxLayout.count(saved);
            if (count < 0 || saved.byteSize() != MailboxLayout.HEADER + count * stride) {
                throw new IllegalStateException("the checkpoint's messages for partition " + j + " claim " + count + " messages in "
                        + saved.byteSize() + " bytes, not messages of " + stride + " bytes: another program");
            }
            Outbox o = outbox[parity][j];
            o.written = 0;
            o.pagesWritten = 0;
            for (long done = 0; done < count; done += perPage) {
                long messages = Math.min(perPage, count - done);
                MemorySegment.copy(saved, MailboxLayout.messageOffset(done, recordBytes), outPage[j], 0, messages * stride);
                o.inPage = messages;
                writePage(o, j, parity);
            }
        }
        publish(parity);
    }

    /** Copies one message record; the common 8-byte record as one long. */
    private void copyRecord(MemorySegment src, long srcAt, MemorySegment dst, long dstAt) {
        if (recordBytes == 8) {
            dst.set(ValueLayout.JAVA_LONG_UNALIGNED, dstAt, src.get(ValueLayout.JAVA_LONG_UNALIGNED, srcAt));
        } else {
            MemorySegment.copy(src, srcAt, dst, dstAt, recordBytes);
        }
    }

    @Override
    public void close() {
        for (int parity = 0; parity < 2; parity++) {
            for (int j = 0; j < partitions; j++) {
                Outbox o = outbox[parity][j];
                o.pages.forEach(Mapping::close);
                if (o.list != null) {
                    o.list.close();
                }
                Inbox in = inbox[parity][j];
                for (Mapping m : in.pages) {
                    if (m != null) {
                        m.close();
                    }
                }
                if (in.list != null) {
                    in.list.close();
                }
            }
        }
        if (groupedArena != null) {
            groupedArena.close();
        }
        if (checkpointArena != null) {
            checkpointArena.close();
        }
        local.close();
    }
}

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
 * How one worker's messages cross RStore: packed records (target + record) in fixed-size
 * pages, a segment each, listed per partition pair and parity in a page list that the
 * directory's cell names ({@link MailboxLayout}). A sender fills one local page per target
 * partition and writes it out when full, to the next page of its list; pages are allocated
 * when a list first needs them and kept for the job, so a superstep that sends no more than
 * one before allocates nothing. A receiver maps each page once, on one local page per
 * source partition, and streams a list's pages through it. Both {@link PackedMailboxes}
 * (every message) and {@link CombiningMailboxes} (one per target) send through it.
 *
 * <p>What it costs: in RStore, the pages of each parity, one partly filled page per pair;
 * in the worker, two local pages per partition pair. Nothing grows by doubling but the page
 * lists (8 bytes a page).
 */
final class MailPages implements AutoCloseable {
    private static final int INITIAL_LIST_PAGES = 16;

    private final Namespace job;
    private final Mapping directory;
    private final int partitions;
    private final int index;
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
    private Arena checkpointArena; // the sections of the last sent(), alive until the next

    /** Receives the pages of a list one after another, each with how many messages it holds. */
    interface PageVisitor {
        void visit(MemorySegment page, long messages);
    }

    /** {@code pageBytes}: the size of a page, {@link MailboxLayout#PAGE_BYTES} in a job (tests take smaller ones). */
    MailPages(Namespace job, Mapping directory, int partitions, int index, int recordBytes, long pageBytes) {
        this.job = job;
        this.directory = directory;
        this.partitions = partitions;
        this.index = index;
        this.recordBytes = recordBytes;
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

    /** Page lists of both parities for every partition, named in this worker's row (the caller writes it); no pages yet. */
    void allocate() {
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

    /** Round 1: maps the page lists of the inbox column, now that every worker named its own. */
    void join() {
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

    /** Before a superstep sends into {@code parity}: its lists start empty (the receivers read them in the superstep before). */
    void startWriting(int parity) {
        for (Outbox o : outbox[parity]) {
            o.written = 0;
            o.pagesWritten = 0;
            o.inPage = 0;
        }
    }

    /** Appends a message to {@code target}, of partition {@code j}, to the {@code parity} list for j. */
    void append(int parity, int j, int target, MemorySegment record, long recordAt) {
        Outbox o = outbox[parity][j];
        if (o.inPage == perPage) {
            writePage(o, j, parity);
        }
        MemorySegment page = outPage[j];
        long at = o.inPage++ * stride;
        page.set(ValueLayout.JAVA_INT_UNALIGNED, at, target);
        if (recordBytes == 8) {
            page.set(ValueLayout.JAVA_LONG_UNALIGNED, at + MailboxLayout.TARGET, record.get(ValueLayout.JAVA_LONG_UNALIGNED, recordAt));
        } else {
            MemorySegment.copy(record, recordAt, page, at + MailboxLayout.TARGET, recordBytes);
        }
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

    /** After a superstep sent into {@code parity}: writes out the partly filled pages and the page lists. */
    void publish(int parity) {
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
     * The {@code parity} page lists of the inbox column, found through the directory (a
     * sender may have moved one), checked, and their new pages mapped; returns how many
     * messages they hold together.
     */
    long readLists(int parity) {
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
        return total;
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

    /** Reads the pages of (j, parity), as {@link #readLists} found them, into partition j's local page one after another, handing each to {@code visitor}. */
    void forEachPage(int parity, int j, PageVisitor visitor) {
        Inbox in = inbox[parity][j];
        for (int k = 0; (long) k * perPage < inCount[j]; k++) {
            long messages = Math.min(perPage, inCount[j] - k * perPage);
            in.pages[k].read(0, messages * stride);
            visitor.visit(inPage[j], messages);
        }
    }

    /**
     * For a checkpoint: per partition, a count and the messages last published into
     * {@code parity}, read back from the pages (the format of a container, so a checkpoint
     * does not depend on the page size). They stay valid until the next call.
     */
    List<MemorySegment> sent(int parity) {
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

    /** Restarting from a checkpoint: {@link #sent}'s messages written into this job's pages of {@code parity}, and published. */
    void resend(int parity, List<MemorySegment> sections) {
        if (sections.size() != partitions) {
            throw new IllegalStateException("the checkpoint holds messages for " + sections.size() + " partitions, the job has " + partitions);
        }
        startWriting(parity);
        for (int j = 0; j < partitions; j++) {
            MemorySegment saved = sections.get(j);
            long count = MailboxLayout.count(saved);
            if (count < 0 || saved.byteSize() != MailboxLayout.HEADER + count * stride) {
                throw new IllegalStateException("the checkpoint's messages for partition " + j + " claim " + count + " messages in "
                        + saved.byteSize() + " bytes, not messages of " + stride + " bytes: another program");
            }
            Outbox o = outbox[parity][j];
            for (long done = 0; done < count; done += perPage) {
                long messages = Math.min(perPage, count - done);
                MemorySegment.copy(saved, MailboxLayout.messageOffset(done, recordBytes), outPage[j], 0, messages * stride);
                o.inPage = messages;
                writePage(o, j, parity);
            }
        }
        publish(parity);
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
        if (checkpointArena != null) {
            checkpointArena.close();
        }
        local.close();
    }
}

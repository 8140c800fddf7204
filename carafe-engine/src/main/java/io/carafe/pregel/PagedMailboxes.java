package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What both kinds of mailboxes do alike, through their {@link MailPages}: page lists set up
 * and joined, the lists a superstep writes emptied at its start, checkpoints. They differ in
 * what goes into the pages and how the receiver takes it out.
 */
abstract class PagedMailboxes implements Mailboxes {
    final MailPages pages;

    PagedMailboxes(MailPages pages) {
        this.pages = pages;
    }

    /** Page lists, no pages: what the messages need is allocated when they are written. */
    @Override
    public final void allocate() {
        pages.allocate();
    }

    @Override
    public final void join() {
        pages.join();
    }

    /** At the start of a superstep's {@link #read}: the lists it writes start empty. */
    final void startWriting(long superstep) {
        pages.startWriting(writeParity(superstep));
    }

    /** The parity superstep {@code superstep} writes: what the next one reads. */
    static int writeParity(long superstep) {
        return (int) ((superstep + 1) & 1);
    }

    @Override
    public final List<MemorySegment> sent(long superstep) {
        return pages.sent((int) (superstep & 1));
    }

    @Override
    public final void resend(long superstep, List<MemorySegment> sections) {
        pages.resend((int) (superstep & 1), sections);
    }

    @Override
    public void close() {
        pages.close();
    }
}

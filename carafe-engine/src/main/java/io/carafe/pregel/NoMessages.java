package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The channel of a program that sends nothing ({@link Declaration.Sending#NOTHING}): no
 * mailboxes, no vertex ever has messages, and a send is an error.
 */
final class NoMessages implements MessageChannel {
    private final long[] none;

    NoMessages(int size) {
        this.none = new long[(size + 63) >>> 6];
    }

    @Override
    public void setUp() {
    }

    @Override
    public void join() {
    }

    @Override
    public void receive(long superstep) {
    }

    @Override
    public long[] arrivals() {
        return none;
    }

    @Override
    public int messageCount(int local) {
        return 0;
    }

    @Override
    public RecordView message(int local, int i) {
        throw new IndexOutOfBoundsException("message " + i + " of 0");
    }

    @Override
    public RecordView combined(int local) {
        throw noneReceived();
    }

    @Override
    public double combinedDouble(int local) {
        throw noneReceived();
    }

    @Override
    public long combinedLong(int local) {
        throw noneReceived();
    }

    /** Unreachable: no vertex of this channel has messages, and the context asks only for those it has. */
    private static IllegalStateException noneReceived() {
        return new IllegalStateException("this program declares no messages (Declaration.messages), so it receives none");
    }

    @Override
    public void sendTo(int target, MemorySegment record, long recordAt) {
        throw refused();
    }

    @Override
    public long sendAlongEdges(int local, MemorySegment record, long recordAt, boolean toAll) {
        throw refused();
    }

    @Override
    public long sendValue(int local, long bits) {
        throw refused();
    }

    private static IllegalStateException refused() {
        return new IllegalStateException("this program declares no messages (Declaration.messages), so it may not send any");
    }

    @Override
    public boolean finish(long messages) {
        return false;
    }

    @Override
    public int checkpointSections() {
        return 0;
    }

    @Override
    public List<MemorySegment> sent(long next) {
        return List.of();
    }

    @Override
    public void resend(long first, List<MemorySegment> sections) {
    }

    @Override
    public void close() {
    }
}

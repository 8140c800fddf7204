package io.carafe.pregel;

import io.carafe.graph.InEdgeLists;
import io.carafe.graph.SequentialEdgeIterator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * {@link Messaging#PUSH}: every message goes to the outbox of its target's partition
 * ({@link Mailboxes}): combined per target vertex when the program has a combiner, else
 * packed in pages; a vertex's sends along its edges are a message per edge.
 */
final class PushChannel implements MessageChannel {
    private final WorkerJob worker;
    private final WorkerGraph graph;
    private final Mailboxes mailboxes;
    private final MemorySegment combined; // with a combiner: the combined messages of one double or long, local vertex u's at index u
    private final boolean plusWeight; // sends along out-edges deliver the message plus the edge's weight
    private final RecordView withWeight; // the reusable record they go in
    private final RecordView value;      // and the one a message of one value goes in
    private long superstep;

    PushChannel(WorkerJob worker) {
        this.worker = worker;
        this.graph = worker.graph();
        this.mailboxes = worker.mailboxes();
        this.combined = mailboxes instanceof CombiningMailboxes c ? c.combined() : MemorySegment.NULL;
        this.plusWeight = worker.declared().addsWeight();
        this.withWeight = RecordView.allocate(worker.declared().message());
        this.value = RecordView.allocate(worker.declared().message());
    }

    /** The outboxes' page lists, named in the directory: pages come as messages need them. */
    @Override
    public void setUp() {
        mailboxes.allocate();
    }

    @Override
    public void join() {
        mailboxes.join();
    }

    @Override
    public void receive(long superstep) {
        this.superstep = superstep;
        mailboxes.read(superstep);
    }

    @Override
    public long[] arrivals() {
        return mailboxes.messageBits();
    }

    @Override
    public int messageCount(int local) {
        return mailboxes.messageCount(local);
    }

    @Override
    public RecordView message(int local, int i) {
        return mailboxes.message(local, i);
    }

    @Override
    public RecordView combined(int local) {
        return mailboxes.message(local, 0);
    }

    @Override
    public double combinedDouble(int local) {
        return combined.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, local);
    }

    @Override
    public long combinedLong(int local) {
        return combined.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, local);
    }

    @Override
    public void sendTo(int target, MemorySegment record, long recordAt) {
        mailboxes.deliver(superstep, target, record, recordAt);
    }

    @Override
    public long sendAlongEdges(int local, MemorySegment record, long recordAt, boolean toAll) {
        SequentialEdgeIterator s = graph.positioned(graph.from() + local);
        s.rewindEdges();
        long sent = 0;
        if (plusWeight) { // the message is one double (PregelJob checks): each edge gets its own sum, in the reusable record
            double d = record.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, recordAt);
            MemorySegment sum = withWeight.memory();
            long sumAt = withWeight.base();
            for (int t; (t = s.nextInt()) >= 0; sent++) {
                sum.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, sumAt, d + s.weight());
                mailboxes.deliver(superstep, t, sum, sumAt);
            }
            return sent;
        }
        for (int t; (t = s.nextInt()) >= 0; sent++) {
            mailboxes.deliver(superstep, t, record, recordAt);
        }
        if (toAll && graph.directed()) {
            InEdgeLists in = graph.inEdges("sendToAllNeighbours()");
            for (int i = in.first(local), end = i + in.degree(local); i < end; i++, sent++) {
                mailboxes.deliver(superstep, in.source(i), record, recordAt);
            }
        }
        return sent;
    }

    @Override
    public long sendValue(int local, long bits) {
        value.setLong(0, bits);
        return sendAlongEdges(local, value.memory(), value.base(), false);
    }

    @Override
    public boolean finish(long messages) {
        mailboxes.write(superstep);
        return false;
    }

    @Override
    public int checkpointSections() {
        return worker.partitions();
    }

    @Override
    public List<MemorySegment> sent(long next) {
        return mailboxes.sent(next);
    }

    @Override
    public void resend(long first, List<MemorySegment> sections) {
        mailboxes.resend(first, sections);
    }

    @Override
    public void close() {
        mailboxes.close();
    }
}

package io.carafe.pregel;

import io.carafe.graph.EdgeListReader;
import io.carafe.graph.InEdgeLists;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@link Messaging#HYBRID}: senders record their values as {@link GatherChannel} does; after
 * compute the superstep goes dense (published for every partition to gather) when they
 * send along more than a hundredth of the partition's out-edges ({@link Messaging#DENSE_FRACTION}), sparse otherwise (pushed
 * along the senders' edges through the mailboxes). Receivers combine both.
 */
final class HybridChannel extends GatherChannel {
    private final CombiningMailboxes mailboxes;
    private final boolean plusWeight; // sparse sends add the edge's weight
    private final boolean alsoIn;     // sparse sends go along in-edges too (sending to all neighbours of a directed graph)
    private final long[] sentLocal;   // local vertices that sent this superstep
    private final RecordView outgoing;
    // for sparse supersteps: where each local vertex's out-edges start in the partition's, the senders in order, their lists
    private long[] edgeStart;
    private int[] senders;
    private EdgeListReader edgeLists;

    HybridChannel(WorkerJob worker, long[] accepting) {
        // sorted in-lists, but where a dense superstep stops at a vertex's first sender (BFS: one value a superstep)
        super(worker, accepting, !worker.declared().sendsSameValue());
        Declaration declared = worker.declared();
        this.mailboxes = worker.combiningMailboxes();
        this.plusWeight = declared.addsWeight();
        this.alsoIn = declared.sending() == Declaration.Sending.ALONG_ALL_EDGES && worker.graph().directed();
        this.sentLocal = new long[(worker.size() + 63) >>> 6];
        this.outgoing = RecordView.allocate(declared.message());
    }

    /** The broadcast segment as gathering has it, and the mailboxes' page lists for sparse supersteps. */
    @Override
    public void setUp() {
        super.setUp();
        int size = worker.size();
        edgeStart = new long[size + 1];
        for (int u = 0; u < size; u++) {
            edgeStart[u + 1] = edgeStart[u] + gather.outDegree(u);
        }
        senders = new int[size];
        edgeLists = new EdgeListReader(worker.graph().rstore(), worker.header().graph(), worker.from(), edgeStart, plusWeight);
        mailboxes.allocate();
    }

    @Override
    public void join() {
        super.join();
        mailboxes.join();
    }

    @Override
    public void receive(long superstep) {
        super.receive(superstep);
        mailboxes.read(superstep);
        mailboxes.mergeInto(gathered, arrived);
    }

    @Override
    public long sendValue(int local, long bits) {
        long degree = super.sendValue(local, bits);
        if (degree > 0) {
            sentLocal[local >>> 6] |= 1L << local;
        }
        return degree;
    }

    @Override
    public boolean finish(long messages) {
        boolean dense = gather.dense(messages);
        if (dense) {
            Arrays.fill(sentLocal, 0); // the gather carries them
        } else {
            pushSent();
        }
        gather.publish(superstep, dense);
        mailboxes.write(superstep);
        return dense;
    }

    /**
     * A sparse superstep: what each sender recorded in the broadcast goes along its
     * out-edges (and in-edges, sending to all neighbours) through the mailboxes instead.
     * Only the senders' edge lists are read ({@link EdgeListReader}), a window at a time.
     */
    private void pushSent() {
        int count = 0;
        for (int w = 0; w < sentLocal.length; w++) {
            for (long rest = sentLocal[w]; rest != 0; rest &= rest - 1) {
                senders[count++] = (w << 6) + Long.numberOfTrailingZeros(rest);
            }
            sentLocal[w] = 0;
        }
        MemorySegment record = outgoing.memory();
        long recordAt = outgoing.base();
        InEdgeLists in = alsoIn ? worker.graph().inEdges("sendToAllNeighbours()") : null;
        for (int first = 0; first < count; ) {
            int end = edgeLists.read(senders, first, count);
            for (int i = first; i < end; i++) {
                int u = senders[i];
                long bits = gather.sentValue(superstep, u);
                record.set(ValueLayout.JAVA_LONG_UNALIGNED, recordAt, bits);
                for (long e = edgeStart[u], last = edgeStart[u + 1]; e < last; e++) {
                    if (plusWeight) {
                        record.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, recordAt, Double.longBitsToDouble(bits) + edgeLists.weight(e));
                    }
                    mailboxes.deliver(superstep, edgeLists.target(e), record, recordAt);
                }
                for (int e = in != null ? in.first(u) : 0, last = in != null ? e + in.degree(u) : 0; e < last; e++) {
                    mailboxes.deliver(superstep, in.source(e), record, recordAt);
                }
            }
            first = end;
        }
    }

    @Override
    public int checkpointSections() {
        return 1 + worker.partitions();
    }

    @Override
    public List<MemorySegment> sent(long next) {
        List<MemorySegment> sections = new ArrayList<>(super.sent(next));
        sections.addAll(mailboxes.sent(next));
        return sections;
    }

    @Override
    public void resend(long first, List<MemorySegment> sections) {
        super.resend(first, sections);
        mailboxes.resend(first, sections.subList(1, sections.size()));
    }

    @Override
    public void close() {
        try (EdgeListReader lists = edgeLists) {
            mailboxes.close();
        } finally {
            super.close();
        }
    }
}

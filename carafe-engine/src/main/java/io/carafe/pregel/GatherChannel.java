package io.carafe.pregel;

import io.rstore.RAddress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;

/**
 * {@link Messaging#GATHER}: a vertex's send along its edges is one 8-byte value (a double
 * or a long) in its slot of this partition's broadcast; every partition reads all of them
 * and combines them along its in-edges ({@link Gather}). Only for programs that broadcast
 * ({@link Messaging#canBroadcast}).
 */
class GatherChannel implements MessageChannel {
    final WorkerJob worker;
    final Gather gather;
    final long[] gathered;    // the combined messages as raw 8-byte values (doubles or longs), by local vertex
    final long[] arrived;     // and who got one
    private final RecordView gatheredView;
    private final RecordView identity;
    private final long[] accepting; // bit u: local vertex u accepts messages; null: every vertex does
    long superstep;

    /**
     * {@code accepting}: with a program that says which vertices accept messages, a bit per
     * local vertex, kept by the superstep loop; only those are combined (null: every vertex).
     * {@code sortInLists}: whether the gather sorts each in-list by slot (for every job whose
     * dense supersteps read every sent in-edge).
     */
    GatherChannel(WorkerJob worker, long[] accepting, boolean sortInLists) {
        Declaration declared = worker.declared();
        JobLayout.Header header = worker.header();
        this.worker = worker;
        this.gather = Gather.build(worker.graph().rstore(), header.graph(), worker.partitioning(), worker.index(), declared.combiner(),
                declared.sending() == Declaration.Sending.ALONG_ALL_EDGES, declared.addsWeight(), declared.sendsSameValue(), sortInLists,
                worker.shared(), header.gatherPlans().isEmpty() ? null : Path.of(header.gatherPlans()));
        worker.graph().knowOutDegrees(gather.outDegrees());
        int size = worker.size();
        this.gathered = new long[size];
        this.arrived = new long[(size + 63) >>> 6];
        this.gatheredView = new RecordView(declared.message()).wrap(MemorySegment.ofArray(gathered), 0);
        this.identity = RecordView.allocate(declared.message());
        declared.combiner().identity(identity);
        this.accepting = accepting;
    }

    /** Allocates the one broadcast segment and names it in the directory. */
    @Override
    public void setUp() {
        int partitions = worker.partitions();
        RAddress segment = gather.allocate(worker.job());
        JobLayout.setBroadcast(worker.directory().segment(), partitions, worker.index(), segment.address(), gather.slots());
        worker.directory().write(JobLayout.broadcast(partitions, worker.index()), JobLayout.broadcastBytes());
    }

    /** Maps the broadcast segments of every partition, now that every worker has published its row. */
    @Override
    public void join() {
        int partitions = worker.partitions();
        worker.directory().read(JobLayout.broadcastsOffset(partitions), JobLayout.broadcastsBytes(partitions));
        MemorySegment dir = worker.directory().segment();
        for (int j = 0; j < partitions; j++) {
            gather.join(worker.job(), j, JobLayout.broadcastAddress(dir, partitions, j), JobLayout.broadcastSlots(dir, partitions, j));
        }
    }

    @Override
    public void receive(long superstep) {
        this.superstep = superstep;
        gather.gather(superstep, gathered, arrived, accepting);
        gather.startStep(superstep);
    }

    @Override
    public final long[] arrivals() {
        return arrived;
    }

    @Override
    public final int messageCount(int local) {
        return 1;
    }

    @Override
    public final RecordView message(int local, int i) {
        return combined(local);
    }

    @Override
    public final RecordView combined(int local) {
        if ((arrived[local >>> 6] & 1L << local) == 0) {
            return identity;
        }
        gatheredView.moveTo(8L * local);
        return gatheredView;
    }

    @Override
    public final double combinedDouble(int local) {
        return Double.longBitsToDouble(gathered[local]);
    }

    @Override
    public final long combinedLong(int local) {
        return gathered[local];
    }

    @Override
    public final void sendTo(int target, MemorySegment record, long recordAt) {
        throw new IllegalStateException("a gathering job sends along edges only"); // the context refuses first: the program broadcasts
    }

    /** The value goes to the vertex's broadcast slot, counted as a message per edge it is heard along. */
    @Override
    public long sendAlongEdges(int local, MemorySegment record, long recordAt, boolean toAll) {
        return sendValue(local, record.get(ValueLayout.JAVA_LONG_UNALIGNED, recordAt));
    }

    @Override
    public long sendValue(int local, long bits) {
        return gather.send(superstep, local, bits);
    }

    @Override
    public boolean finish(long messages) {
        gather.publish(superstep, true);
        return true;
    }

    @Override
    public int checkpointSections() {
        return 1;
    }

    @Override
    public List<MemorySegment> sent(long next) {
        return List.of(gather.sent(next));
    }

    @Override
    public void resend(long first, List<MemorySegment> sections) {
        gather.resend(first, sections.getFirst());
    }

    @Override
    public void close() {
        gather.close();
    }
}

package io.carafe.pregel;

import io.carafe.graph.InEdgeLists;
import io.carafe.graph.Neighbours;
import io.carafe.graph.SequentialEdgeIterator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.Supplier;

/**
 * What a vertex program sees of the vertex it computes: the superstep loop points it at
 * each vertex in turn ({@link #at}). Values and messages are records read through
 * flyweights, and messages come from and go to the job's {@link MessageChannel}: nothing
 * here is allocated per vertex or message, and nothing asks how messages travel.
 */
final class VertexContext implements VertexProgram.Context {
    private final VertexProgram program;
    private final WorkerGraph graph;
    private final MessageChannel channel;
    private final long vertexCount;
    private final long edgeCount;
    private final long valueBytes;
    private final Declaration.Sending sending;
    private final boolean onceOnly; // one send a superstep, of one kind (Sending.broadcasts)
    private final boolean toAll;    // and that kind is sendToAllNeighbours
    private final boolean oneValue; // messages are one 8-byte value: sent without the outgoing record
    private final Combiner combiner;
    private final DoubleCombiner doubles; // the combiner when messages are one double
    private final LongCombiner longs;     // likewise for one long
    private final boolean doubleMessages; // doubles != null
    private final boolean longMessages;   // longs != null
    private final RecordView identity;    // the combined message of a vertex that has none
    private final Aggregation aggregation;
    private final long[] globalValues;
    private final long[] halted; // the loop's: bit u set when local vertex u voted to halt
    private final GatheredArrays shared; // what the job's workers in this process share

    private final RecordView value;
    private final ValueSnapshots snapshots; // when the program reads other vertices' values, else null
    private final RecordView otherValue;    // a vertex's value in them
    private final boolean singleLongValues; // values of one long: longValueOf reads them directly
    private final RecordView outgoing;
    private final OutEdges outEdges = new OutEdges();
    private final InEdgeCursor inEdgeCursor = new InEdgeCursor();

    private long superstep;
    private int vertex;
    private int local;
    private boolean accepted; // whether the vertex has messages it accepts
    private boolean sent;     // whether it sent along its edges this superstep
    private long messagesSent;

    /** {@code values}: the partition's values as mapped; {@code snapshots}: everyone's, or null. */
    VertexContext(WorkerJob worker, MessageChannel channel, MemorySegment values, ValueSnapshots snapshots, long[] halted) {
        this.program = worker.program();
        this.graph = worker.graph();
        this.channel = channel;
        this.vertexCount = worker.header().vertices();
        this.edgeCount = worker.header().edges();
        this.valueBytes = worker.header().valueBytes();
        Declaration declared = worker.declared();
        this.sending = declared.sending();
        this.onceOnly = sending.broadcasts();
        this.toAll = sending == Declaration.Sending.ALONG_ALL_EDGES;
        this.combiner = declared.combiner();
        // a program that sends nothing gets flyweights of one long, which its channel never takes
        RecordLayout messageLayout = declared.message() != null ? declared.message() : RecordLayout.LONG;
        this.doubles = combiner instanceof DoubleCombiner d && messageLayout.isSingle(RecordLayout.Type.DOUBLE) ? d : null;
        this.longs = combiner instanceof LongCombiner l && messageLayout.isSingle(RecordLayout.Type.LONG) ? l : null;
        this.doubleMessages = doubles != null;
        this.longMessages = longs != null;
        this.oneValue = messageLayout.bytes() == 8;
        this.identity = RecordView.allocate(messageLayout);
        if (combiner != null) {
            combiner.identity(identity);
        }
        this.aggregation = new Aggregation(program.aggregators());
        this.globalValues = new long[worker.header().globals()];
        this.halted = halted;
        this.shared = worker.shared();
        this.value = new RecordView(declared.value()).wrap(values, 0);
        this.snapshots = snapshots;
        this.otherValue = new RecordView(declared.value());
        if (snapshots != null) {
            otherValue.wrap(snapshots.all().asReadOnly(), 0); // others' values, shared by this process's workers: not to be written
        }
        this.singleLongValues = declared.value().isSingle(RecordLayout.Type.LONG);
        this.outgoing = RecordView.allocate(messageLayout);
    }

    /** A superstep starts: the aggregates and globals the coordinator published for it. */
    void startSuperstep(long superstep, MemorySegment coordinatorArea, int aggregators) {
        this.superstep = superstep;
        this.messagesSent = 0;
        aggregation.start(coordinatorArea);
        for (int g = 0; g < globalValues.length; g++) {
            globalValues[g] = BarrierAreas.global(coordinatorArea, aggregators, g);
        }
    }

    /** Points the context at local vertex {@code local} (global {@code vertex}), which has messages it accepts or not. */
    void at(int local, int vertex, boolean accepted) {
        this.local = local;
        this.vertex = vertex;
        this.accepted = accepted;
        this.sent = false;
        value.moveTo(local * valueBytes);
    }

    /** Messages the vertices sent this superstep (a send along edges counts one per edge). */
    long messagesSent() {
        return messagesSent;
    }

    /** This superstep's aggregates, into this worker's barrier area. */
    void publishAggregates(MemorySegment area) {
        aggregation.publish(area);
    }

    @Override
    public long superstep() {
        return superstep;
    }

    @Override
    public long vertexCount() {
        return vertexCount;
    }

    @Override
    public long edgeCount() {
        return edgeCount;
    }

    @Override
    public int vertex() {
        return vertex;
    }

    @Override
    public long originalId() {
        return graph.originalId(vertex);
    }

    @Override
    public int outDegree() {
        return graph.outDegree(vertex);
    }

    @Override
    public int inDegree() {
        if (!graph.directed()) {
            return outDegree();
        }
        return graph.inEdges("inDegree()").degree(local);
    }

    @Override
    public boolean directed() {
        return graph.directed();
    }

    @Override
    public RecordView value() {
        return value;
    }

    @Override
    public RecordView valueOf(int vertex) {
        otherValue.moveTo(snapshotAt(vertex, "valueOf"));
        return otherValue;
    }

    @Override
    public long longValueOf(int vertex) {
        if (!singleLongValues) {
            throw new IllegalStateException("longValueOf(vertex) needs values of one long; use valueOf(vertex)");
        }
        return snapshots.all().get(ValueLayout.JAVA_LONG_UNALIGNED, snapshotAt(vertex, "longValueOf"));
    }

    /** Where vertex's record is in the snapshot, once the call is known to be allowed. */
    private long snapshotAt(int vertex, String what) {
        if (snapshots == null) {
            throw new IllegalStateException(what + "(vertex) needs a program that declares Declaration.readingOtherValues()");
        }
        WorkerGraph.requireVertex(what, vertex, vertexCount);
        return vertex * valueBytes;
    }

    @Override
    public boolean hasMessages() {
        return accepted;
    }

    @Override
    public int messageCount() {
        return accepted ? channel.messageCount(local) : 0;
    }

    @Override
    public RecordView message(int i) {
        int count = messageCount();
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("message " + i + " of " + count);
        }
        return channel.message(local, i);
    }

    @Override
    public RecordView message() {
        if (combiner == null) {
            throw new IllegalStateException("message() needs a combiner; without one use messageCount() and message(i)");
        }
        return accepted ? channel.combined(local) : identity;
    }

    // messageDouble and messageLong stay under HotSpot's MaxInlineSize (35 bytecodes): a program's
    // compute is often compiled while superstep 0 runs, when it reads no messages, and a larger
    // method would not be inlined at a call site that was cold then.

    @Override
    public double messageDouble() {
        return accepted & doubleMessages ? channel.combinedDouble(local) : noDoubleMessage();
    }

    private double noDoubleMessage() {
        if (!doubleMessages) {
            throw new IllegalStateException("messageDouble() needs messages of one double with a DoubleCombiner; use message()");
        }
        return doubles.identity();
    }

    @Override
    public long messageLong() {
        return accepted & longMessages ? channel.combinedLong(local) : noLongMessage();
    }

    private long noLongMessage() {
        if (!longMessages) {
            throw new IllegalStateException("messageLong() needs messages of one long with a LongCombiner; use message()");
        }
        return longs.identity();
    }

    @Override
    public <T> T sharedInProcess(Class<T> type, Supplier<? extends T> make) {
        return shared.program(type, make);
    }

    @Override
    public Neighbours outNeighbours(int vertex) {
        return graph.neighbourhoods("outNeighbours", vertex, vertexCount).out(vertex);
    }

    @Override
    public Neighbours inNeighbours(int vertex) {
        return graph.neighbourhoods("inNeighbours", vertex, vertexCount).in(vertex);
    }

    @Override
    public int outDegreeOf(int vertex) {
        return graph.neighbourhoods("outDegreeOf", vertex, vertexCount).outDegree(vertex);
    }

    @Override
    public int inDegreeOf(int vertex) {
        return graph.neighbourhoods("inDegreeOf", vertex, vertexCount).inDegree(vertex);
    }

    @Override
    public VertexProgram.Edges outEdges() {
        SequentialEdgeIterator scan = graph.positioned(vertex);
        scan.rewindEdges();
        outEdges.scan = scan;
        return outEdges;
    }

    @Override
    public VertexProgram.Edges inEdges() {
        if (!graph.directed()) {
            return outEdges();
        }
        InEdgeLists in = graph.inEdges("inEdges()");
        inEdgeCursor.reset(in, in.first(local), in.first(local) + in.degree(local));
        return inEdgeCursor;
    }

    @Override
    public RecordView newMessage() {
        outgoing.clear();
        return outgoing;
    }

    @Override
    public void sendTo(int target, RecordView message) {
        if (onceOnly) {
            throw new IllegalStateException("this program declares Sending." + sending + ", so it may not send to a vertex id");
        }
        if (target < 0 || target >= vertexCount) {
            throw new IndexOutOfBoundsException("no vertex " + target + ": internal ids are 0.." + (vertexCount - 1));
        }
        channel.sendTo(target, message.memory(), message.base());
        messagesSent++;
    }

    @Override
    public void sendToOutNeighbours(RecordView message) {
        sendOnce(false);
        messagesSent += channel.sendAlongEdges(local, message.memory(), message.base(), false);
    }

    @Override
    public void sendToAllNeighbours(RecordView message) {
        if (onceOnly && !toAll) {
            throw new IllegalStateException("this program declares Sending." + sending + ", so it may not send to all neighbours");
        }
        if (graph.directed()) {
            graph.inEdges("sendToAllNeighbours()");
        }
        sendOnce(true);
        messagesSent += channel.sendAlongEdges(local, message.memory(), message.base(), true);
    }

    /** A program that declares one send a superstep ({@link Declaration.Sending#broadcasts}) sends once, and of the kind it declared. */
    private void sendOnce(boolean toAllNeighbours) {
        if (!onceOnly) {
            return;
        }
        if (toAllNeighbours != toAll) {
            throw new IllegalStateException("this program declares Sending." + sending + ", so it sends with "
                    + (toAll ? "sendToAllNeighbours" : "sendToOutNeighbours") + " only");
        }
        if (sent) {
            throw new IllegalStateException("this program declares Sending." + sending + ", so a vertex sends along its edges at most once per superstep");
        }
        sent = true;
    }

    @Override
    public void sendTo(int target, double v) {
        outgoing.setDouble(0, v);
        sendTo(target, outgoing);
    }

    @Override
    public void sendToOutNeighbours(double v) {
        sendValue(Double.doubleToRawLongBits(v));
    }

    /** A value into field 0 of the message, sent along the out-edges; a message of that value alone goes without a record. */
    private void sendValue(long bits) {
        if (!oneValue) {
            outgoing.setLong(0, bits);
            sendToOutNeighbours(outgoing);
            return;
        }
        sendOnce(false);
        messagesSent += channel.sendValue(local, bits);
    }

    @Override
    public void sendTo(int target, long v) {
        outgoing.setLong(0, v);
        sendTo(target, outgoing);
    }

    @Override
    public void sendToOutNeighbours(long v) {
        sendValue(v);
    }

    @Override
    public void voteToHalt() {
        halted[local >>> 6] |= 1L << local;
    }

    @Override
    public void aggregate(int i, double v) {
        aggregation.add(i, v);
    }

    @Override
    public void aggregate(int i, long v) {
        aggregation.add(i, v);
    }

    @Override
    public double aggregatedDouble(int i) {
        return aggregation.previousDouble(i);
    }

    @Override
    public long aggregatedLong(int i) {
        return aggregation.previousLong(i);
    }

    @Override
    public double globalDouble(int i) {
        return Double.longBitsToDouble(globalValues[i]);
    }

    @Override
    public long globalLong(int i) {
        return globalValues[i];
    }

    /** The current vertex's out-edges, over the partition's scan. */
    private static final class OutEdges implements VertexProgram.Edges {
        private SequentialEdgeIterator scan;
        private int target;

        @Override
        public boolean next() {
            target = scan.nextInt();
            return target >= 0;
        }

        @Override
        public int target() {
            return target;
        }

        @Override
        public double weight() {
            return scan.weight();
        }
    }

    /** The current vertex's in-edges. */
    private static final class InEdgeCursor implements VertexProgram.Edges {
        private InEdgeLists in;
        private int at;
        private int end;

        void reset(InEdgeLists in, int first, int end) {
            this.in = in;
            this.at = first - 1;
            this.end = end;
        }

        @Override
        public boolean next() {
            return ++at < end;
        }

        @Override
        public int target() {
            return in.source(at);
        }

        @Override
        public double weight() {
            return in.weight(at);
        }
    }
}

package io.carafe.pregel;

import io.carafe.graph.EdgeOffsets;
import io.carafe.graph.GraphPartition;
import io.carafe.graph.InEdgeLists;
import io.carafe.graph.NeighbourhoodReader;
import io.carafe.graph.Neighbours;
import io.carafe.graph.SequentialEdgeIterator;
import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.barrier.BarrierLayout;
import io.rstore.barrier.BarrierWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * One partition worker. It joins a job knowing only the cluster and the job's namespace:
 * the directory there names the graph, the partitioning, the values, the barrier and the
 * mailbox grid. Setup round: count edges into every partition, allocate its outbox
 * containers, write its row into the directory. Then, each superstep: read the inbox
 * column, compute, write the outbox row and the values, report counts and aggregates,
 * wait. Messages travel through {@link Mailboxes}, or, when the job gathers
 * ({@link Messaging#GATHER}), as one value per sending vertex combined along in-edges by
 * {@link Gather}; a hybrid job ({@link Messaging#HYBRID}) records its senders' values as
 * gathering does and then, each superstep, publishes them (dense) or pushes them along
 * their out-edges (sparse).
 * Values and messages are records read through flyweights: nothing is allocated per
 * vertex or message.
 */
final class PartitionWorker implements Callable<Void> {
    private final String clusterUri;
    private final RStoreSettings settings;
    private final String jobNamespace;
    private final int index;
    private final Function<String, VertexProgram> programs;
    private final long timeoutMs;
    private final GatheredArrays gatheredArrays; // shared with the job's other workers in this process
    /** Hybrid's sparse supersteps read the senders' edge lists; lists at most this many edges apart are read as one (16 KiB). */
    private static final long MERGE_GAP_EDGES = 4096;
    /** They read whole blocks of this many edges, and remember which they have read. */
    private static final long EDGE_BLOCK = 4096;

    /**
     * {@code programs} builds the vertex program from the spec in the job's directory;
     * {@code gatheredArrays} holds the gather's arrays, one for the job's workers in this process.
     */
    PartitionWorker(String clusterUri, RStoreSettings settings, String jobNamespace, int index, Function<String, VertexProgram> programs,
                    long timeoutMs, GatheredArrays gatheredArrays) {
        this.clusterUri = clusterUri;
        this.settings = settings;
        this.jobNamespace = jobNamespace;
        this.index = index;
        this.programs = programs;
        this.timeoutMs = timeoutMs;
        this.gatheredArrays = gatheredArrays;
    }

    @Override
    public Void call() {
        try (RStore rstore = RStore.connect(clusterUri, settings)) {
            Namespace job = rstore.joinNamespace(jobNamespace);
            try (Mapping directory = job.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.PREFETCH)) {
                MemorySegment dir = directory.segment();
                if (!JobLayout.valid(dir)) {
                    throw new IllegalStateException(jobNamespace + " holds no Pregel job directory");
                }
                JobLayout.Header header = JobLayout.readHeader(dir);
                VertexProgram program = programs.apply(header.program());
                checkSameProgram(program, header);
                BarrierLayout layout = new BarrierLayout(header.partitions(), BarrierAreas.bytes(header.aggregators(), header.globals()));
                try (BarrierWorker barrier = new BarrierWorker(job.raddress(header.barrierAt()), layout, index);
                     Arena arena = Arena.ofShared()) { // shared, not confined: its segments are checked for liveness only, not for the owning thread, on every access
                    try {
                        new Run(rstore, job, directory, header, program, barrier, arena).run();
                    } catch (RuntimeException | Error e) {
                        if (!isAbort(e)) {
                            barrier.fail(); // an abort needs no report: the coordinator started it
                        }
                        throw e;
                    }
                }
            }
        }
        return null;
    }

    /** A worker in another process builds the program from its spec: it must come out with the records the coordinator laid out. */
    private static void checkSameProgram(VertexProgram program, JobLayout.Header header) {
        if (program.valueLayout().bytes() != header.valueBytes() || program.messageLayout().bytes() != header.messageBytes()
                || program.aggregators().size() != header.aggregators() || program.globals() != header.globals()) {
            throw new IllegalStateException("the program built from spec '" + header.program() + "' has other records or aggregators than"
                    + " the job's (" + program.valueLayout().bytes() + "/" + program.messageLayout().bytes() + " value/message bytes, expected "
                    + header.valueBytes() + "/" + header.messageBytes() + ")");
        }
    }

    /** The state of one run; fields rather than locals so the context can reach them. */
    private final class Run implements VertexProgram.Context {
        private final RStore rstore;
        private final Namespace job;
        private final Mapping directory;
        private final JobLayout.Header header;
        private final VertexProgram program;
        private final BarrierWorker barrier;
        private final Arena arena;
        private final int partitions;
        private final Partitioning partitioning;
        private final Combiner combiner;
        private final DoubleCombiner doubles; // the combiner when messages are one double
        private final LongCombiner longs;     // likewise for one long
        private final boolean gathering; // messages arrive through the gather (GATHER, HYBRID)
        private final boolean hybrid;    // and sparse supersteps push through the mailboxes too
        private final boolean onceOnly; // one send a superstep, of one kind (Sends.broadcasts)
        private final boolean toAll;    // and that kind is sendToAllNeighbours
        private final boolean plusWeight; // sendToOutNeighbours(d) delivers d + the edge's weight
        private final boolean silent;     // the program sends nothing (Sends.NOTHING): no mailboxes
        private final Aggregation aggregation;
        private final int aggregators;
        private final int globals;
        private final int from;
        private final int size;
        private final long vertexCount;
        private final long valueBytes;
        private final boolean needsInEdges;
        private final long first;                    // the first superstep: 0, or the checkpoint a restarted job goes on from
        private final int checkpointEvery;           // 0: none
        private final java.nio.file.Path checkpoints; // the job's checkpoint directory, or null

        // the graph: mapped when first needed (gathering programs that only send may never need it)
        private GraphPartition part;
        private SequentialEdgeIterator scan;
        private NeighbourhoodReader neighbourhoods; // when the program reads other vertices' edges
        private boolean directed;
        private Gather gather;
        private InEdgeLists inEdges;

        private Mapping values;
        private final RecordView value;
        private ValueSnapshots snapshots;      // when the program reads other vertices' values
        private final RecordView otherValue;   // a vertex's value in them
        private final boolean singleLongValues; // values of one long: longValueOf reads them directly
        private Mailboxes mailboxes; // pushing, or hybrid
        // gathering: the combined messages as raw 8-byte values (doubles or longs), a view of them, and who got one
        private long[] gathered;
        private RecordView gatheredView;
        private RecordView gatheredIdentity;
        private long[] gatheredHas;

        private final RecordView outgoing;
        private final OutEdges outEdges = new OutEdges();
        private final InEdgeCursor inEdgeCursor = new InEdgeCursor();
        private final long[] halted;
        private final long[] computedWords; // bit w: a vertex of halted's word w computed this superstep
        private final long[] noMessages;    // the message bits of a program that sends nothing: none
        private final Batch valueWrites = new Batch();
        private final long[] sentLocal; // hybrid: local vertices that sent this superstep
        private final boolean selective; // the program says which vertices accept messages (acceptsMessages)
        private final java.util.function.IntPredicate acceptance; // accepts(u) for the gather's combine when selective, else null
        private final RecordView probe;   // a vertex's value, read to ask it that
        private boolean accepted;         // whether the vertex being computed has messages it accepts
        // hybrid, for sparse supersteps: where each local vertex's out-edges start in the partition's, the senders in order, their reads
        private long[] edgeStart;
        private int[] senders;
        private final Batch edgeReads = new Batch();
        /** Which blocks of EDGE_BLOCK edges are in the local mapping already: the graph does not change during a job, so each is read once. */
        private long[] edgeBlocksRead;
        private final long[] globalValues;
        private long superstep;
        private int vertex;
        private int local;
        private boolean sent;
        private long messagesSent;

        Run(RStore rstore, Namespace job, Mapping directory, JobLayout.Header header, VertexProgram program, BarrierWorker barrier, Arena arena) {
            this.rstore = rstore;
            this.job = job;
            this.directory = directory;
            this.header = header;
            this.program = program;
            this.barrier = barrier;
            this.arena = arena;
            this.partitions = header.partitions();
            this.partitioning = new Partitioning(header.starts(), 0, 0);
            this.combiner = program.combiner();
            RecordLayout messageLayout = program.messageLayout();
            this.doubles = combiner instanceof DoubleCombiner d && messageLayout.isSingle(RecordLayout.Type.DOUBLE) ? d : null;
            this.longs = combiner instanceof LongCombiner l && messageLayout.isSingle(RecordLayout.Type.LONG) ? l : null;
            this.hybrid = header.messaging() == Messaging.HYBRID;
            this.gathering = hybrid || header.messaging() == Messaging.GATHER;
            this.onceOnly = program.sends().broadcasts();
            this.toAll = program.sends() == VertexProgram.Sends.ALL_NEIGHBOURS_ONCE;
            this.plusWeight = program.sends() == VertexProgram.Sends.OUT_NEIGHBOURS_ONCE_PLUS_WEIGHT;
            this.silent = program.sends() == VertexProgram.Sends.NOTHING;
            this.aggregation = new Aggregation(program.aggregators());
            this.aggregators = header.aggregators();
            this.globals = header.globals();
            this.from = partitioning.start(index);
            this.size = partitioning.end(index) - from;
            this.vertexCount = header.vertices();
            this.valueBytes = header.valueBytes();
            this.needsInEdges = program.needsInEdges();
            this.value = new RecordView(program.valueLayout());
            this.probe = new RecordView(program.valueLayout());
            this.otherValue = new RecordView(program.valueLayout());
            this.singleLongValues = program.valueLayout().isSingle(RecordLayout.Type.LONG);
            this.outgoing = RecordView.allocate(messageLayout);
            this.halted = new long[(size + 63) >>> 6];
            this.computedWords = new long[(halted.length + 63) >>> 6];
            this.noMessages = silent ? new long[halted.length] : null;
            this.sentLocal = hybrid ? new long[halted.length] : null;
            this.selective = declaresAcceptance(program);
            this.acceptance = selective ? this::accepts : null;
            this.globalValues = new long[globals];
            this.first = header.firstSuperstep();
            this.checkpointEvery = header.checkpointEvery();
            this.checkpoints = header.checkpointDirectory().isEmpty() ? null : java.nio.file.Path.of(header.checkpointDirectory());
        }

        void run() {
            if (!barrier.awaitStart(0, timeoutMs)) {
                return;
            }
            try {
                io.carafe.graph.GraphHeader graph = io.carafe.graph.CarafeGraph.header(rstore, header.graph());
                directed = graph.directed();
                if (gathering) {
                    gather = Gather.build(rstore, header.graph(), partitioning, index, combiner, toAll, plusWeight,
                            program.sendsOneValueEachSuperstep(), !hybrid, gatheredArrays);
                }
                if (!gathering) {
                    openGraph();
                }
                if ((needsInEdges || program.readsNeighbourhoods()) && directed) {
                    inEdges = InEdgeLists.read(rstore, header.graph(), from, from + size, true);
                }
                if (program.readsNeighbourhoods()) {
                    openGraph();
                    EdgeOffsets offsets = gatheredArrays.edgeOffsets(() -> EdgeOffsets.read(rstore, header.graph()));
                    neighbourhoods = new NeighbourhoodReader(rstore, header.graph(), offsets, part, inEdges, header.neighbourhoodCacheBytes());
                }
                setUp();
                if (first > 0) {
                    restore();
                }
                barrier.finish(0);
                // round 1: every partition has named its outboxes, so each can map the others' (setup, not superstep 0)
                if (!barrier.awaitStart(1, timeoutMs)) {
                    return;
                }
                if (gathering) {
                    joinBroadcasts();
                }
                if (mailboxes != null) {
                    mailboxes.join();
                }
                barrier.finish(1);
                // round k >= 2 runs superstep first + k - 2: rounds stay consecutive after a restart
                for (superstep = first; ; superstep++) {
                    if (!barrier.awaitStart(superstep - first + 2, timeoutMs)) {
                        return;
                    }
                    step();
                    if (checkpointEvery > 0 && (superstep + 1) % checkpointEvery == 0) {
                        checkpoint(superstep + 1);
                    }
                    barrier.finish(superstep - first + 2);
                }
            } finally {
                if (mailboxes != null) {
                    mailboxes.close();
                }
                if (gather != null) {
                    gather.close();
                }
                if (neighbourhoods != null) {
                    neighbourhoods.close();
                }
                if (part != null) {
                    part.close();
                }
                if (snapshots != null) {
                    snapshots.close();
                }
                if (values != null) {
                    values.close();
                }
            }
        }

        private void openGraph() {
            if (part == null) {
                part = GraphPartition.open(rstore, header.graph(), from, from + size);
                scan = part.scan();
            }
        }

        /**
         * Pushing: counts this partition's edges into every partition and allocates the
         * outbox containers with room for a message per edge (per target vertex with a
         * combiner): what most programs send, and what grows when they send more.
         * Gathering: allocates the one broadcast segment and names it in the directory.
         * Hybrid: both, the mailboxes sized for the most a sparse superstep sends.
         */
        private void setUp() {
            MemorySegment dir = directory.segment();
            if (gathering) {
                RAddress segment = gather.allocate(job);
                JobLayout.setBroadcast(dir, partitions, index, segment.address(), gather.slots());
                directory.write(JobLayout.broadcast(partitions, index), JobLayout.broadcastBytes());
                gathered = new long[size];
                gatheredView = new RecordView(program.messageLayout()).wrap(MemorySegment.ofArray(gathered), 0);
                gatheredHas = new long[(size + 63) >>> 6];
                gatheredIdentity = RecordView.allocate(program.messageLayout());
                combiner.identity(gatheredIdentity);
            }
            if (hybrid) {
                openGraph();
                edgeStart = new long[size + 1];
                for (int u = 0; u < size; u++) {
                    edgeStart[u + 1] = edgeStart[u] + gather.outDegree(u);
                }
                senders = new int[size];
                edgeBlocksRead = new long[(int) ((edgeStart[size] / EDGE_BLOCK + 64) >>> 6)];
                long[] sparse = new long[partitions]; // so they never grow
                java.util.Arrays.fill(sparse, gather.mostSparseMessages());
                mailboxes = new Mailboxes(job, directory, partitioning, index, header.vertices(), program.messageLayout(), combiner, arena);
                mailboxes.allocate(sparse);
            } else if (!gathering && !silent) {
                long[] edgesInto = new long[partitions];
                for (int v; (v = scan.nextVertex()) >= 0; ) {
                    for (int t; (t = scan.nextInt()) >= 0; ) {
                        edgesInto[partitioning.partitionOf(t)]++;
                    }
                }
                scan.restart();
                mailboxes = new Mailboxes(job, directory, partitioning, index, header.vertices(), program.messageLayout(), combiner, arena);
                mailboxes.allocate(edgesInto);
            }
            directory.write(JobLayout.row(partitions, index), JobLayout.rowBytes(partitions));
            values = job.raddress(header.valuesAt()).map((long) header.valueBytes() * from, Math.max((long) header.valueBytes() * size, 8),
                    MapFlags.NONE);
            values.segment().fill((byte) 0); // values start zeroed; local memory holds whatever it last held
            value.wrap(values.segment(), 0);
            if (program.readsOtherValues()) {
                snapshots = new ValueSnapshots(job.raddress(header.valuesAt()), valueBytes, vertexCount, from, size, values.segment(), gatheredArrays);
                otherValue.wrap(snapshots.all().asReadOnly(), 0); // others' values, shared by this process's workers: not to be written
            }
        }

        /**
         * This worker's part of the checkpoint that superstep {@code next} starts from: its
         * values, halted bits and what it sent for {@code next} to read, on disk before it
         * reports the superstep finished.
         */
        private void checkpoint(long next) {
            java.util.List<MemorySegment> sections = new java.util.ArrayList<>();
            sections.add(values.segment());
            sections.add(MemorySegment.ofArray(halted));
            if (gathering) {
                sections.add(gather.sent(next));
            }
            if (mailboxes != null) {
                sections.addAll(mailboxes.sent(next));
            }
            Checkpoints.writeWorker(checkpoints, next, index, sections);
        }

        /** A restarted job: values, halted bits and sent messages as the checkpoint of superstep {@code first} holds them. */
        private void restore() {
            try (Arena files = Arena.ofConfined()) {
                java.util.List<MemorySegment> sections = Checkpoints.readWorker(checkpoints, first, index, files);
                MemorySegment savedValues = sections.get(0);
                MemorySegment savedHalted = sections.get(1);
                if (savedValues.byteSize() != values.segment().byteSize() || savedHalted.byteSize() != 8L * halted.length) {
                    throw new IllegalStateException("checkpoint " + first + " holds " + savedValues.byteSize() + " bytes of values for partition "
                            + index + ", which has " + values.segment().byteSize() + ": another partitioning or program");
                }
                MemorySegment.copy(savedValues, 0, values.segment(), 0, savedValues.byteSize());
                values.write();
                if (snapshots != null) {
                    snapshots.publish(first - 1); // what superstep first reads: the values it starts from
                }
                MemorySegment.copy(savedHalted, 0, MemorySegment.ofArray(halted), 0, savedHalted.byteSize());
                int expected = 2 + (gathering ? 1 : 0) + (mailboxes != null ? partitions : 0);
                if (sections.size() != expected) {
                    throw new IllegalStateException("checkpoint " + first + " holds " + sections.size() + " sections for partition " + index
                            + ", a " + header.messaging().name().toLowerCase(java.util.Locale.ROOT) + " job writes " + expected
                            + ": it was written with other messaging; resume with the --messaging it ran with");
                }
                int at = 2;
                if (gathering) {
                    gather.resend(first, sections.get(at++));
                }
                if (mailboxes != null) {
                    mailboxes.resend(first, sections.subList(at, sections.size()));
                }
            }
        }

        /** Maps the broadcast segments of every partition, now that every worker has published its row. */
        private void joinBroadcasts() {
            directory.read(JobLayout.broadcastsOffset(partitions), JobLayout.broadcastsBytes(partitions));
            MemorySegment dir = directory.segment();
            for (int j = 0; j < partitions; j++) {
                gather.join(job, j, JobLayout.broadcastAddress(dir, partitions, j), JobLayout.broadcastSlots(dir, partitions, j));
            }
        }

        /** Bytes this worker's client has read and written through RStore so far (0 with metrics off). */
        private long bytesMoved() {
            var metrics = rstore.metrics();
            return metrics.meter(io.rstore.internal.ClientMetrics.READ_BYTES).getCount()
                    + metrics.meter(io.rstore.internal.ClientMetrics.WRITE_BYTES).getCount();
        }

        private void step() {
            long bytesBefore = bytesMoved();
            MemorySegment coordinator = barrier.coordinatorArea();
            aggregation.start(coordinator);
            for (int g = 0; g < globals; g++) {
                globalValues[g] = BarrierAreas.global(coordinator, aggregators, g);
            }
            messagesSent = 0;
            if (snapshots != null) {
                snapshots.read(superstep);
            }
            if (gathering) {
                gather.gather(superstep, gathered, gatheredHas, acceptance);
                gather.startStep(superstep);
            }
            if (mailboxes != null) {
                mailboxes.read(superstep);
                if (hybrid) {
                    mailboxes.mergeInto(gathered, gatheredHas);
                }
            }
            long active = 0;
            long computed = 0;
            // 64 vertices at a time: only those not halted or with messages can compute, so a
            // superstep with few of them costs a pass over words, not over vertices. The body
            // stays in the loop, as it was in the loop over vertices: in a method of its own,
            // WCC by hooking computed 3-7% slower (3 pairs).
            long[] arrived = gathering ? gatheredHas : silent ? noMessages : mailboxes.messageBits(); // who has messages; null: ask the mailboxes
            for (int w = 0; w < halted.length; w++) {
                long candidates = superstep == 0 || arrived == null ? -1L : ~halted[w] | arrived[w];
                if (w == halted.length - 1 && (size & 63) != 0) {
                    candidates &= (1L << size) - 1; // no vertices past the partition's last
                }
                boolean wordComputed = false;
                for (; candidates != 0; candidates &= candidates - 1) {
                    local = (w << 6) + Long.numberOfTrailingZeros(candidates);
                    vertex = from + local;
                    // asked once, before compute changes the value: messages that arrived and that the vertex accepts
                    accepted = (arrived != null ? (arrived[w] & (1L << local)) != 0 : mailboxes.hasMessages(local)) && (!selective || accepts(local));
                    boolean wasHalted = (halted[w] & (1L << local)) != 0;
                    if (superstep == 0 || accepted || !wasHalted) {
                        halted[w] &= ~(1L << local);
                        sent = false;
                        value.moveTo(local * valueBytes);
                        program.compute(this);
                        wordComputed = true;
                        computed++;
                        if ((halted[w] & (1L << local)) == 0) {
                            active++;
                        }
                    }
                }
                if (wordComputed) {
                    computedWords[w >>> 6] |= 1L << w; // the word's values may have changed: written after the superstep
                }
            }
            boolean dense = gathering && (!hybrid || gather.dense(messagesSent));
            if (hybrid && !dense) {
                pushSent();
            } else if (hybrid) {
                java.util.Arrays.fill(sentLocal, 0); // the gather carries them
            }
            if (gathering) {
                gather.publish(superstep, dense);
            }
            if (mailboxes != null) {
                mailboxes.write(superstep);
            }
            writeComputedValues();
            if (snapshots != null) {
                snapshots.publish(superstep);
            }
            MemorySegment area = barrier.area();
            BarrierAreas.putLong(area, BarrierAreas.ACTIVE, active);
            BarrierAreas.putLong(area, BarrierAreas.MESSAGES, messagesSent);
            BarrierAreas.putLong(area, BarrierAreas.BYTES, bytesMoved() - bytesBefore);
            BarrierAreas.putLong(area, BarrierAreas.COMPUTED, computed);
            BarrierAreas.putLong(area, BarrierAreas.DENSE, dense ? 1 : 0);
            aggregation.publish(area);
        }

        /**
         * Writes the values of the words of 64 vertices that had vertices computing this
         * superstep, consecutive words as one write: only compute changes a value, and superstep
         * 0 computes every vertex, so the rest are in RStore as they are here.
         */
        private void writeComputedValues() {
            long wordBytes = 64 * valueBytes;
            long total = values.segment().byteSize();
            int words = halted.length;
            for (int w = 0; w < words; ) {
                if ((computedWords[w >>> 6] & 1L << w) == 0) {
                    w++;
                    continue;
                }
                int end = w + 1;
                while (end < words && (computedWords[end >>> 6] & 1L << end) != 0) {
                    end++;
                }
                long offset = w * wordBytes;
                long length = Math.min(end * wordBytes, total) - offset;
                if (length > 0) { // values of no bytes have nothing to write
                    valueWrites.write(values, offset, length);
                }
                w = end;
            }
            java.util.Arrays.fill(computedWords, 0);
            valueWrites.join();
        }

        /**
         * A sparse superstep of a hybrid job: what each sender recorded in the broadcast goes
         * along its out-edges (and in-edges, sending to all neighbours) through the mailboxes
         * instead. Only the senders' edge lists are read, all in flight at once, lists at
         * most {@link #MERGE_GAP_EDGES} apart as one read, and none that an earlier sparse
         * superstep of the job read.
         */
        private void pushSent() {
            int count = 0;
            for (int w = 0; w < sentLocal.length; w++) {
                for (long rest = sentLocal[w]; rest != 0; rest &= rest - 1) {
                    senders[count++] = (w << 6) + Long.numberOfTrailingZeros(rest);
                }
                sentLocal[w] = 0;
            }
            long runStart = 0;
            long runEnd = -1;
            for (int i = 0; i < count; i++) {
                long start = edgeStart[senders[i]];
                long end = edgeStart[senders[i] + 1];
                if (runEnd >= 0 && start - runEnd <= MERGE_GAP_EDGES) {
                    runEnd = end;
                    continue;
                }
                readEdges(runStart, runEnd);
                runStart = start;
                runEnd = end;
            }
            readEdges(runStart, runEnd);
            edgeReads.join();
            MemorySegment record = outgoing.memory();
            long recordAt = outgoing.base();
            boolean alsoIn = toAll && directed;
            for (int i = 0; i < count; i++) {
                int u = senders[i];
                long bits = gather.sentValue(superstep, u);
                record.set(ValueLayout.JAVA_LONG_UNALIGNED, recordAt, bits);
                for (long e = edgeStart[u], end = edgeStart[u + 1]; e < end; e++) {
                    if (plusWeight) {
                        record.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, recordAt, Double.longBitsToDouble(bits) + part.weight(e));
                    }
                    mailboxes.deliver(superstep, part.target(e), record, recordAt);
                }
                for (int e = alsoIn ? inEdges.first(u) : 0, end = alsoIn ? e + inEdges.degree(u) : 0; e < end; e++) {
                    mailboxes.deliver(superstep, inEdges.source(e), record, recordAt);
                }
            }
        }

        /**
         * Adds to the batch the reads of the blocks holding the partition's edges
         * {@code [start, end)} (and their weights when sends add them) that are not yet in the
         * local mapping: consecutive unread blocks as one read.
         */
        private void readEdges(long start, long end) {
            if (end <= start) {
                return;
            }
            long unreadFrom = -1;
            for (long b = start / EDGE_BLOCK, last = (end - 1) / EDGE_BLOCK; b <= last + 1; b++) {
                boolean unread = b <= last && (edgeBlocksRead[(int) (b >>> 6)] & 1L << b) == 0;
                if (unread) {
                    edgeBlocksRead[(int) (b >>> 6)] |= 1L << b;
                    if (unreadFrom < 0) {
                        unreadFrom = b;
                    }
                } else if (unreadFrom >= 0) {
                    long first = unreadFrom * EDGE_BLOCK;
                    long count = Math.min(b * EDGE_BLOCK, edgeStart[size]) - first;
                    part.readTargets(edgeReads, first, count);
                    if (plusWeight) {
                        part.readWeights(edgeReads, first, count);
                    }
                    unreadFrom = -1;
                }
            }
        }

        /** Gathering: the vertex's value goes to its broadcast slot (counted as a message per out-edge). */
        private void broadcast(long bits) {
            sent = true;
            int degree = gather.send(superstep, local, bits);
            messagesSent += degree;
            if (hybrid && degree > 0) {
                sentLocal[local >>> 6] |= 1L << local;
            }
        }

        private void deliver(int target, MemorySegment record, long recordAt) {
            messagesSent++;
            mailboxes.deliver(superstep, target, record, recordAt);
        }

        /** The scan positioned at the current vertex: partitions are walked in order, so this is a step forward but at a superstep's start. */
        private SequentialEdgeIterator positioned() {
            openGraph();
            if (scan.vertex() > vertex) {
                scan.restart();
            }
            while (scan.vertex() < vertex) {
                scan.nextVertex();
            }
            return scan;
        }

        // ---- VertexProgram.Context ----

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
            return header.edges();
        }

        @Override
        public int vertex() {
            return vertex;
        }

        @Override
        public long originalId() {
            return positioned().originalId();
        }

        @Override
        public int outDegree() {
            return gathering ? gather.outDegree(local) : positioned().degree();
        }

        @Override
        public int inDegree() {
            if (!directed) {
                return outDegree();
            }
            requireInEdges("inDegree()");
            return inEdges.degree(local);
        }

        @Override
        public boolean directed() {
            return directed;
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
                throw new IllegalStateException(what + "(vertex) needs a program that declares readsOtherValues()");
            }
            requireVertex(what, vertex);
            return vertex * valueBytes;
        }

        /** Whether local vertex {@code u} accepts messages, as its value stands (the program declares {@link VertexProgram#acceptsMessages}). */
        private boolean accepts(int u) {
            probe.wrap(values.segment(), u * valueBytes);
            return program.acceptsMessages(probe);
        }

        @Override
        public boolean hasMessages() {
            return accepted;
        }

        @Override
        public int messageCount() {
            if (!hasMessages()) {
                return 0;
            }
            return gathering ? 1 : mailboxes.messageCount(local);
        }

        @Override
        public RecordView message(int i) {
            int count = messageCount();
            if (i < 0 || i >= count) {
                throw new IndexOutOfBoundsException("message " + i + " of " + count);
            }
            return gathering ? message() : mailboxes.message(local, i);
        }

        @Override
        public RecordView message() {
            if (combiner == null) {
                throw new IllegalStateException("message() needs a combiner; without one use messageCount() and message(i)");
            }
            if (!gathering) {
                return mailboxes.message(local, 0);
            }
            if (!hasMessages()) {
                return gatheredIdentity;
            }
            gatheredView.moveTo(8L * local);
            return gatheredView;
        }

        @Override
        public double messageDouble() {
            if (doubles == null) {
                throw new IllegalStateException("messageDouble() needs messages of one double with a DoubleCombiner; use message()");
            }
            if (!hasMessages()) {
                return doubles.identity();
            }
            return gathering ? Double.longBitsToDouble(gathered[local]) : mailboxes.combined().getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, local);
        }

        @Override
        public long messageLong() {
            if (longs == null) {
                throw new IllegalStateException("messageLong() needs messages of one long with a LongCombiner; use message()");
            }
            if (!hasMessages()) {
                return longs.identity();
            }
            return gathering ? gathered[local] : mailboxes.combined().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, local);
        }

        @Override
        public Neighbours outNeighbours(int vertex) {
            return neighbourhoods("outNeighbours", vertex).out(vertex);
        }

        @Override
        public Neighbours inNeighbours(int vertex) {
            return neighbourhoods("inNeighbours", vertex).in(vertex);
        }

        @Override
        public int outDegreeOf(int vertex) {
            return neighbourhoods("outDegreeOf", vertex).outDegree(vertex);
        }

        @Override
        public int inDegreeOf(int vertex) {
            return neighbourhoods("inDegreeOf", vertex).inDegree(vertex);
        }

        /** The reader, once the call is known to be allowed. */
        private NeighbourhoodReader neighbourhoods(String what, int vertex) {
            if (neighbourhoods == null) {
                throw new IllegalStateException(what + "(vertex) needs a program that declares readsNeighbourhoods()");
            }
            requireVertex(what, vertex);
            return neighbourhoods;
        }

        /** Refuses a call about a vertex that the graph does not have. */
        private void requireVertex(String what, int vertex) {
            if (vertex < 0 || vertex >= vertexCount) {
                throw new IllegalArgumentException(what + "(" + vertex + "): no such vertex; internal ids run from 0 to " + (vertexCount - 1));
            }
        }

        @Override
        public VertexProgram.Edges outEdges() {
            SequentialEdgeIterator s = positioned();
            s.rewindEdges();
            return outEdges;
        }

        @Override
        public VertexProgram.Edges inEdges() {
            if (!directed) {
                return outEdges();
            }
            requireInEdges("inEdges()");
            inEdgeCursor.reset(inEdges.first(local), inEdges.first(local) + inEdges.degree(local));
            return inEdgeCursor;
        }

        private void requireInEdges(String what) {
            if (inEdges == null) {
                throw new IllegalStateException(what + " on a directed graph needs a program that declares needsInEdges()");
            }
        }

        @Override
        public RecordView newMessage() {
            outgoing.clear();
            return outgoing;
        }

        /** A program that declares {@link VertexProgram.Sends#NOTHING} has no mailboxes to send through. */
        private void requireSending() {
            if (silent) {
                throw new IllegalStateException("this program declares Sends.NOTHING, so it may not send messages");
            }
        }

        @Override
        public void sendTo(int target, RecordView message) {
            requireSending();
            if (onceOnly) {
                throw new IllegalStateException("this program declares Sends." + program.sends() + ", so it may not send to a vertex id");
            }
            if (target < 0 || target >= vertexCount) {
                throw new IndexOutOfBoundsException("no vertex " + target + ": internal ids are 0.." + (vertexCount - 1));
            }
            deliver(target, message.memory(), message.base());
        }

        @Override
        public void sendToOutNeighbours(RecordView message) {
            requireSending();
            sendOnce(false);
            if (gathering) { // one 8-byte value, as Messaging.canBroadcast requires
                broadcast(message.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, message.base()));
                return;
            }
            pushAlongOutEdges(message);
        }

        @Override
        public void sendToAllNeighbours(RecordView message) {
            requireSending();
            if (onceOnly && !toAll) {
                throw new IllegalStateException("this program declares Sends." + program.sends() + ", so it may not send to all neighbours");
            }
            if (directed) {
                requireInEdges("sendToAllNeighbours()");
            }
            sendOnce(true);
            if (gathering) {
                broadcast(message.memory().get(ValueLayout.JAVA_LONG_UNALIGNED, message.base()));
                return;
            }
            pushAlongOutEdges(message);
            if (!directed) {
                return;
            }
            for (int i = inEdges.first(local), end = i + inEdges.degree(local); i < end; i++) {
                deliver(inEdges.source(i), message.memory(), message.base());
            }
        }

        /** A program that declares one send a superstep ({@link VertexProgram.Sends#broadcasts}) sends once, and of the kind it declared. */
        private void sendOnce(boolean toAllNeighbours) {
            if (!onceOnly) {
                return;
            }
            if (toAllNeighbours != toAll) {
                throw new IllegalStateException("this program declares Sends." + program.sends() + ", so it sends with "
                        + (toAll ? "sendToAllNeighbours" : "sendToOutNeighbours") + " only");
            }
            if (sent) {
                throw new IllegalStateException("this program declares Sends." + program.sends() + ", so a vertex sends along its edges at most once per superstep");
            }
            sent = true;
        }

        private void pushAlongOutEdges(RecordView message) {
            SequentialEdgeIterator s = positioned();
            s.rewindEdges();
            MemorySegment memory = message.memory();
            long base = message.base();
            if (plusWeight) { // the message is one double (PregelJob checks): each edge gets its own sum, in the reusable record
                double d = message.getDouble(0);
                MemorySegment record = outgoing.memory();
                long recordAt = outgoing.base();
                for (int t; (t = s.nextInt()) >= 0; ) {
                    record.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, recordAt, d + s.weight());
                    deliver(t, record, recordAt);
                }
                return;
            }
            for (int t; (t = s.nextInt()) >= 0; ) {
                deliver(t, memory, base);
            }
        }

        @Override
        public void sendTo(int target, double v) {
            outgoing.setDouble(0, v);
            sendTo(target, outgoing);
        }

        @Override
        public void sendToOutNeighbours(double v) {
            if (gathering && !sent && !toAll) { // PageRank's path, once per vertex: straight to the broadcast slot
                broadcast(Double.doubleToRawLongBits(v));
                return;
            }
            outgoing.setDouble(0, v);
            sendToOutNeighbours(outgoing);
        }

        @Override
        public void sendTo(int target, long v) {
            outgoing.setLong(0, v);
            sendTo(target, outgoing);
        }

        @Override
        public void sendToOutNeighbours(long v) {
            if (gathering && !sent && !toAll) {
                broadcast(v);
                return;
            }
            outgoing.setLong(0, v);
            sendToOutNeighbours(outgoing);
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
        private final class OutEdges implements VertexProgram.Edges {
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
        private final class InEdgeCursor implements VertexProgram.Edges {
            private int at;
            private int end;

            void reset(int first, int end) {
                this.at = first - 1;
                this.end = end;
            }

            @Override
            public boolean next() {
                return ++at < end;
            }

            @Override
            public int target() {
                return inEdges.source(at);
            }

            @Override
            public double weight() {
                return inEdges.weight(at);
            }
        }
    }

    /**
     * Whether the program says which vertices accept messages (else every vertex does, and
     * nobody asks); a {@link ForwardingVertexProgram} that only passes the question on
     * declares what its delegate does.
     */
    static boolean declaresAcceptance(VertexProgram program) {
        try {
            Class<?> declaring = program.getClass().getMethod("acceptsMessages", RecordView.class).getDeclaringClass();
            if (declaring == ForwardingVertexProgram.class) {
                return declaresAcceptance(((ForwardingVertexProgram) program).delegate());
            }
            return declaring != VertexProgram.class;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    static boolean isAbort(Throwable e) {
        return e instanceof io.rstore.RStoreException rse && rse.code() == io.rstore.ErrorCode.ABORTED;
    }
}

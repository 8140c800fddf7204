package io.carafe.pregel;

import io.carafe.graph.GraphPartition;
import io.carafe.graph.SequentialEdgeIterator;
import io.rstore.AllocFlags;
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
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * One partition worker. It joins a job knowing only the cluster and the job's namespace:
 * the directory there names the graph, the partitioning, the values, the barrier and the
 * mailbox grid. Setup round: count edges into every partition, allocate its outbox
 * containers, write its row into the directory. Then, each superstep: find and read the
 * inbox column, compute, write the outbox row and the values, report counts and
 * aggregates, wait. When the job gathers ({@link Messaging#GATHER}), the outbox is one
 * value per sending vertex and the inbox is combined along in-edges by {@link Gather}.
 * Values and messages are records read through flyweights: nothing is allocated per
 * vertex or message.
 */
final class PartitionWorker implements Callable<Void> {
    /** Targets per bucket: 2^18 slots, a block that stays in cache while combined (2^16 measured slower for 8-byte messages). */
    private static final int BUCKET_SHIFT = 18;
    /** Messages a bucket holds before it is combined. */
    private static final int BUCKET_CAPACITY = 1 << 14;

    private final String clusterUri;
    private final RStoreSettings settings;
    private final String jobNamespace;
    private final int index;
    private final Function<String, VertexProgram> programs;
    private final long timeoutMs;

    /** {@code programs} builds the vertex program from the spec in the job's directory. */
    PartitionWorker(String clusterUri, RStoreSettings settings, String jobNamespace, int index, Function<String, VertexProgram> programs,
                    long timeoutMs) {
        this.clusterUri = clusterUri;
        this.settings = settings;
        this.jobNamespace = jobNamespace;
        this.index = index;
        this.programs = programs;
        this.timeoutMs = timeoutMs;
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
        private final DoubleCombiner doubles; // the combiner when messages are one double: combined as plain doubles
        private final LongCombiner longs;     // likewise for one long
        private final boolean gathering;
        private final boolean onceOnly;
        private final Aggregation aggregation;
        private final int aggregators;
        private final int globals;
        private final int from;
        private final int size;
        private final int recordBytes;
        private final long stride; // bytes of a message in a container: target + record
        private final boolean needsInEdges;

        // the graph: mapped when first needed (gathering programs that only send may never need it)
        private GraphPartition part;
        private SequentialEdgeIterator scan;
        private boolean directed;
        private Gather gather;
        private InEdges inEdges;

        private Mapping values;
        private final RecordView value;
        // outbox containers by [parity][partition], grown by doubling
        private final Mapping[][] outbox;
        private final long[][] outCapacity;
        private final long[] outCount;
        // inbox containers by [parity][partition], re-mapped when a sender moved one
        private final Mapping[][] inbox;
        private final long[][] inAddress;
        private final long[] inCount;
        private final Batch batch = new Batch();

        // inbox, combined: one record per local vertex, and who got one
        private MemorySegment combined;
        private double[] gathered; // when gathering: the combined messages as doubles (what `combined` wraps)
        private long[] hasMessage;
        // inbox, uncombined: messages grouped by local vertex (counting sort)
        private int[] messageStart;
        private int[] messageNext;
        private MemorySegment grouped;
        private final RecordView incoming;
        // outbox, combined: one record per global vertex (identity when untouched) and a bit per vertex
        private MemorySegment outRecords;
        private long[] outTouched;
        private final RecordView identity;
        // propagation blocking: messages wait in buckets by target range, then combine a cache-sized block at a time
        private int[] bucketTarget;
        private MemorySegment bucketRecords;
        private int[] bucketFill;
        private final RecordView into;
        private final RecordView from2;

        private final RecordView outgoing;
        private final OutEdges outEdges = new OutEdges();
        private final InEdgeCursor inEdgeCursor = new InEdgeCursor();
        private final long[] halted;
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
            if (combiner instanceof DoubleCombiner && doubles == null || combiner instanceof LongCombiner && longs == null) {
                throw new IllegalArgumentException("a " + combiner.getClass().getSimpleName() + " combines messages of one field of its type;"
                        + " this program's messages are " + messageLayout);
            }
            this.gathering = header.messaging() == Messaging.GATHER;
            this.onceOnly = program.sends() == VertexProgram.Sends.OUT_NEIGHBOURS_ONCE;
            this.aggregation = new Aggregation(program.aggregators());
            this.aggregators = header.aggregators();
            this.globals = header.globals();
            this.from = partitioning.start(index);
            this.size = partitioning.end(index) - from;
            this.recordBytes = messageLayout.bytes();
            this.stride = MailboxLayout.messageBytes(recordBytes);
            this.needsInEdges = program.needsInEdges();
            this.value = new RecordView(program.valueLayout());
            this.incoming = new RecordView(messageLayout);
            this.identity = RecordView.allocate(messageLayout);
            this.into = new RecordView(messageLayout);
            this.from2 = new RecordView(messageLayout);
            this.outgoing = RecordView.allocate(messageLayout);
            this.outbox = new Mapping[2][partitions];
            this.outCapacity = new long[2][partitions];
            this.outCount = new long[partitions];
            this.inbox = new Mapping[2][partitions];
            this.inAddress = new long[2][partitions];
            this.inCount = new long[partitions];
            this.halted = new long[(size + 63) >>> 6];
            this.globalValues = new long[globals];
            if (combiner != null) {
                combiner.identity(identity);
            }
        }

        void run() {
            if (!barrier.awaitStart(0, timeoutMs)) {
                return;
            }
            try {
                directed = io.carafe.graph.CarafeGraph.header(rstore, header.graph()).directed();
                if (gathering) {
                    gather = Gather.build(rstore, header.graph(), partitioning, index, doubles);
                } else {
                    openGraph();
                }
                if (needsInEdges && directed) {
                    inEdges = InEdges.build(rstore, header.graph(), partitioning, index, scanWeighted());
                }
                setUp();
                barrier.finish(0);
                if (!barrier.awaitStart(1, timeoutMs)) {
                    return;
                }
                if (gathering) {
                    joinBroadcasts();
                }
                for (superstep = 0; ; superstep++) {
                    if (superstep > 0 && !barrier.awaitStart(superstep + 1, timeoutMs)) {
                        return;
                    }
                    step();
                    barrier.finish(superstep + 1);
                }
            } finally {
                for (int parity = 0; parity < 2; parity++) {
                    closeAll(inbox[parity]);
                    closeAll(outbox[parity]);
                }
                if (gather != null) {
                    gather.close();
                }
                if (part != null) {
                    part.close();
                }
                if (values != null) {
                    values.close();
                }
            }
        }

        private boolean scanWeighted() {
            return io.carafe.graph.CarafeGraph.header(rstore, header.graph()).weighted();
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
         * Gathering: allocates the one broadcast segment and names it in every cell.
         */
        private void setUp() {
            MemorySegment dir = directory.segment();
            if (gathering) {
                RAddress segment = gather.allocate(job);
                for (int j = 0; j < partitions; j++) {
                    for (int parity = 0; parity < 2; parity++) {
                        JobLayout.setCell(dir, partitions, index, j, parity, segment.address(), gather.slots());
                    }
                }
            } else {
                long[] edgesInto = new long[partitions];
                for (int v; (v = scan.nextVertex()) >= 0; ) {
                    for (int t; (t = scan.nextInt()) >= 0; ) {
                        edgesInto[partitioning.partitionOf(t)]++;
                    }
                }
                scan.restart();
                for (int j = 0; j < partitions; j++) {
                    long targets = partitioning.end(j) - partitioning.start(j);
                    long capacity = Math.max(64, combiner == null ? edgesInto[j] : Math.min(edgesInto[j], targets));
                    for (int parity = 0; parity < 2; parity++) {
                        allocateOutbox(j, parity, capacity);
                    }
                }
            }
            directory.write(JobLayout.row(partitions, index), JobLayout.rowBytes(partitions));
            values = job.raddress(header.valuesAt()).map((long) header.valueBytes() * from, Math.max((long) header.valueBytes() * size, 8),
                    MapFlags.NONE);
            values.segment().fill((byte) 0); // values start zeroed; local memory holds whatever it last held
            value.wrap(values.segment(), 0);
            if (combiner != null) {
                if (gathering) {
                    gathered = new double[size];
                    combined = MemorySegment.ofArray(gathered);
                } else {
                    combined = arena.allocate(Math.max(1, (long) size * recordBytes), 8);
                }
                hasMessage = new long[(size + 63) >>> 6];
                incoming.wrap(combined, 0);
            } else {
                messageStart = new int[size + 1];
                messageNext = new int[size];
                grouped = arena.allocate(Math.max(64, 1024L * recordBytes), 8);
            }
            if (combiner != null && !gathering) {
                long n = header.vertices();
                outRecords = arena.allocate(Math.max(1, n * recordBytes), 8);
                for (long t = 0; t < n; t++) {
                    copyRecord(identity.memory(), 0, outRecords, t * recordBytes);
                }
                outTouched = new long[(int) ((n + 63) >>> 6)];
                int buckets = (int) ((n + (1L << BUCKET_SHIFT) - 1) >>> BUCKET_SHIFT);
                bucketTarget = new int[buckets * BUCKET_CAPACITY];
                bucketRecords = arena.allocate((long) buckets * BUCKET_CAPACITY * recordBytes, 8);
                bucketFill = new int[buckets];
                into.wrap(outRecords, 0);
                from2.wrap(bucketRecords, 0);
            }
        }

        /** A container of {@code capacity} messages for cell (index, j) of {@code parity}, named in the directory (the caller writes it). */
        private Mapping allocateOutbox(int j, int parity, long capacity) {
            RAddress segment = job.alloc(MailboxLayout.containerBytes(capacity, recordBytes), AllocFlags.GROW);
            Mapping m = segment.map(MapFlags.NONE);
            outbox[parity][j] = m;
            outCapacity[parity][j] = capacity;
            JobLayout.setCell(directory.segment(), partitions, index, j, parity, segment.address(), capacity);
            return m;
        }

        /**
         * A full container is replaced by one twice its size, holding what the old one held.
         * Receivers read this parity next superstep and find the new container in the
         * directory then. The old segment stays in the job's namespace until the job ends:
         * a receiver may still have it mapped.
         */
        private void growOutbox(int j, int parity) {
            Mapping old = outbox[parity][j];
            long capacity = outCapacity[parity][j] * 2;
            Mapping grown = allocateOutbox(j, parity, capacity);
            MemorySegment.copy(old.segment(), MailboxLayout.HEADER, grown.segment(), MailboxLayout.HEADER, outCount[j] * stride);
            old.close();
            directory.write(JobLayout.cellPart(partitions, index, j, parity), 16);
        }

        /** Maps the broadcast segments of every partition, now that every worker has published its row. */
        private void joinBroadcasts() {
            directory.read(JobLayout.gridOffset(partitions), JobLayout.gridBytes(partitions));
            MemorySegment dir = directory.segment();
            for (int j = 0; j < partitions; j++) {
                gather.join(job, j, JobLayout.cellAddress(dir, partitions, j, index, 0), JobLayout.cellCapacity(dir, partitions, j, index, 0));
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
            Arrays.fill(outCount, 0);
            messagesSent = 0;
            if (gathering) {
                gather.gather(superstep, gathered, hasMessage);
                gather.startStep(superstep);
            } else {
                readInbox();
            }
            long active = 0;
            long computed = 0;
            for (local = 0; local < size; local++) {
                vertex = from + local;
                boolean message = hasMessages();
                boolean wasHalted = (halted[local >>> 6] & (1L << local)) != 0;
                if (superstep == 0 || message || !wasHalted) {
                    halted[local >>> 6] &= ~(1L << local);
                    sent = false;
                    value.moveTo((long) local * header.valueBytes());
                    program.compute(this);
                    computed++;
                    if ((halted[local >>> 6] & (1L << local)) == 0) {
                        active++;
                    }
                }
            }
            if (gathering) {
                gather.publish(superstep);
            } else {
                writeOutbox();
            }
            values.write();
            MemorySegment area = barrier.area();
            BarrierAreas.putLong(area, BarrierAreas.ACTIVE, active);
            BarrierAreas.putLong(area, BarrierAreas.MESSAGES, messagesSent);
            BarrierAreas.putLong(area, BarrierAreas.BYTES, bytesMoved() - bytesBefore);
            BarrierAreas.putLong(area, BarrierAreas.COMPUTED, computed);
            aggregation.publish(area);
        }

        /**
         * Messages written in the previous superstep: the (superstep mod 2) containers of the
         * inbox column, found through the directory (a sender may have moved one), read
         * header first, then as many messages as each holds.
         */
        private void readInbox() {
            if (combiner != null) {
                Arrays.fill(hasMessage, 0);
            } else {
                Arrays.fill(messageStart, 0);
            }
            if (superstep == 0) {
                return;
            }
            int parity = (int) (superstep & 1);
            directory.read(JobLayout.gridOffset(partitions), JobLayout.gridBytes(partitions));
            MemorySegment dir = directory.segment();
            for (int j = 0; j < partitions; j++) {
                long address = JobLayout.cellAddress(dir, partitions, j, index, parity);
                if (inbox[parity][j] == null || inAddress[parity][j] != address) {
                    if (inbox[parity][j] != null) {
                        inbox[parity][j].close();
                    }
                    inbox[parity][j] = job.raddress(address).map(MapFlags.NONE);
                    inAddress[parity][j] = address;
                }
                batch.read(inbox[parity][j], 0, MailboxLayout.HEADER);
            }
            batch.join();
            long total = 0;
            for (int j = 0; j < partitions; j++) {
                MemorySegment container = inbox[parity][j].segment();
                inCount[j] = MailboxLayout.count(container);
                long room = (container.byteSize() - MailboxLayout.HEADER) / stride;
                if (inCount[j] < 0 || inCount[j] > room) {
                    throw new IllegalStateException("mailbox " + j + "->" + index + " claims " + inCount[j] + " messages, room for " + room);
                }
                if (inCount[j] > 0) {
                    batch.read(inbox[parity][j], MailboxLayout.HEADER, inCount[j] * stride);
                }
                total += inCount[j];
            }
            batch.join();
            if (combiner != null) {
                combineInbox(parity);
            } else {
                groupInbox(parity, total);
            }
        }

        private void combineInbox(int parity) {
            for (int j = 0; j < partitions; j++) {
                MemorySegment container = inbox[parity][j].segment();
                for (long i = 0, at = MailboxLayout.HEADER; i < inCount[j]; i++, at += stride) {
                    int target = container.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
                    long bit = 1L << target;
                    long slot = (long) target * recordBytes;
                    if ((hasMessage[target >>> 6] & bit) == 0) {
                        hasMessage[target >>> 6] |= bit;
                        copyRecord(container, at + MailboxLayout.TARGET, combined, slot);
                    } else {
                        combineRecord(combined, slot, container, at + MailboxLayout.TARGET);
                    }
                }
            }
        }

        /** Without a combiner: every message, grouped by target vertex (a counting sort over the containers). */
        private void groupInbox(int parity, long total) {
            if (total > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("partition " + index + " received " + total + " messages in one superstep; use more workers or a combiner");
            }
            for (int j = 0; j < partitions; j++) {
                MemorySegment container = inbox[parity][j].segment();
                for (long i = 0, at = MailboxLayout.HEADER; i < inCount[j]; i++, at += stride) {
                    messageStart[container.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from + 1]++;
                }
            }
            for (int v = 0; v < size; v++) {
                messageStart[v + 1] += messageStart[v];
            }
            if (total * recordBytes > grouped.byteSize()) {
                grouped = arena.allocate(Math.max(total * recordBytes, 2 * grouped.byteSize()), 8);
            }
            System.arraycopy(messageStart, 0, messageNext, 0, size);
            for (int j = 0; j < partitions; j++) {
                MemorySegment container = inbox[parity][j].segment();
                for (long i = 0, at = MailboxLayout.HEADER; i < inCount[j]; i++, at += stride) {
                    int target = container.get(ValueLayout.JAVA_INT_UNALIGNED, at) - from;
                    copyRecord(container, at + MailboxLayout.TARGET, grouped, (long) messageNext[target]++ * recordBytes);
                }
            }
            incoming.wrap(grouped, 0);
        }

        /** Encodes and writes the ((superstep + 1) mod 2) containers of the outbox row, all posted together. */
        private void writeOutbox() {
            if (combiner != null) {
                for (int b = 0; b < bucketFill.length; b++) {
                    combineBucket(b);
                }
            }
            int parity = (int) ((superstep + 1) & 1);
            for (int j = 0; j < partitions; j++) {
                if (combiner != null) {
                    outCount[j] = drainCombined(j, parity, partitioning.start(j), partitioning.end(j));
                }
                MemorySegment container = outbox[parity][j].segment();
                MailboxLayout.setCount(container, outCount[j]);
                batch.write(outbox[parity][j], 0, MailboxLayout.HEADER + outCount[j] * stride);
            }
            batch.join();
        }

        private void combineBucket(int b) {
            int start = b * BUCKET_CAPACITY;
            int end = start + bucketFill[b];
            for (int i = start; i < end; i++) {
                int t = bucketTarget[i];
                combineRecord(outRecords, (long) t * recordBytes, bucketRecords, (long) i * recordBytes);
                outTouched[t >>> 6] |= 1L << t;
            }
            bucketFill[b] = 0;
        }

        /**
         * Encodes the combined messages for targets in {@code [start, end)}, in ascending
         * order (so the receiver combines them sequentially), and resets their slots.
         */
        private long drainCombined(int j, int parity, int start, int end) {
            long count = 0;
            for (int word = start >>> 6; word <= (end - 1) >>> 6 && end > start; word++) {
                long bits = outTouched[word];
                if (bits == 0) {
                    continue;
                }
                int base = word << 6;
                long keep = 0; // bits of this word outside [start, end) belong to a neighbouring partition
                for (long rest = bits; rest != 0; rest &= rest - 1) {
                    int t = base + Long.numberOfTrailingZeros(rest);
                    if (t < start || t >= end) {
                        keep |= rest & -rest;
                        continue;
                    }
                    if (count == outCapacity[parity][j]) {
                        outCount[j] = count;
                        growOutbox(j, parity);
                    }
                    MemorySegment container = outbox[parity][j].segment();
                    long at = MailboxLayout.messageOffset(count++, recordBytes);
                    container.set(ValueLayout.JAVA_INT_UNALIGNED, at, t);
                    copyRecord(outRecords, (long) t * recordBytes, container, at + MailboxLayout.TARGET);
                    copyRecord(identity.memory(), 0, outRecords, (long) t * recordBytes);
                }
                outTouched[word] = keep;
            }
            return count;
        }

        /**
         * With a combiner the message is appended to its target range's bucket (sequential
         * writes); a full bucket is combined into its block of slots, which fits in cache.
         * Combining straight into the slots was a cache miss per message and took three
         * quarters of a PageRank superstep on a 4.8M-vertex graph.
         */
        private void deliver(int target, MemorySegment record, long recordAt) {
            messagesSent++;
            if (combiner != null) {
                int b = target >>> BUCKET_SHIFT;
                int at = b * BUCKET_CAPACITY + bucketFill[b];
                bucketTarget[at] = target;
                copyRecord(record, recordAt, bucketRecords, (long) at * recordBytes);
                if (++bucketFill[b] == BUCKET_CAPACITY) {
                    combineBucket(b);
                }
                return;
            }
            int j = partitioning.partitionOf(target);
            int parity = (int) ((superstep + 1) & 1);
            if (outCount[j] == outCapacity[parity][j]) {
                growOutbox(j, parity);
            }
            MemorySegment container = outbox[parity][j].segment();
            long at = MailboxLayout.messageOffset(outCount[j]++, recordBytes);
            container.set(ValueLayout.JAVA_INT_UNALIGNED, at, target);
            copyRecord(record, recordAt, container, at + MailboxLayout.TARGET);
        }

        /** Copies one message record; the common 8-byte record as one long. */
        private void copyRecord(MemorySegment src, long srcAt, MemorySegment dst, long dstAt) {
            if (recordBytes == 8) {
                dst.set(ValueLayout.JAVA_LONG_UNALIGNED, dstAt, src.get(ValueLayout.JAVA_LONG_UNALIGNED, srcAt));
            } else {
                MemorySegment.copy(src, srcAt, dst, dstAt, recordBytes);
            }
        }

        /** {@code into[intoAt] = into[intoAt] ⊕ msg[msgAt]}: built-in combiners on plain doubles and longs, others through flyweights. */
        private void combineRecord(MemorySegment intoMemory, long intoAt, MemorySegment msg, long msgAt) {
            if (doubles != null) {
                intoMemory.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, intoAt, doubles.combine(intoMemory.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, intoAt),
                        msg.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, msgAt)));
            } else if (longs != null) {
                intoMemory.set(ValueLayout.JAVA_LONG_UNALIGNED, intoAt, longs.combine(intoMemory.get(ValueLayout.JAVA_LONG_UNALIGNED, intoAt),
                        msg.get(ValueLayout.JAVA_LONG_UNALIGNED, msgAt)));
            } else {
                combiner.combine(into.wrap(intoMemory, intoAt), from2.wrap(msg, msgAt));
            }
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
            return header.vertices();
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
            return gathering ? gather.degree(local) : positioned().degree();
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
        public RecordView value() {
            return value;
        }

        @Override
        public boolean hasMessages() {
            if (combiner != null) {
                return (hasMessage[local >>> 6] & (1L << local)) != 0;
            }
            return messageStart[local + 1] > messageStart[local];
        }

        @Override
        public int messageCount() {
            if (combiner != null) {
                return hasMessages() ? 1 : 0;
            }
            return messageStart[local + 1] - messageStart[local];
        }

        @Override
        public RecordView message(int i) {
            if (combiner != null) {
                if (i != 0 || !hasMessages()) {
                    throw new IndexOutOfBoundsException("message " + i + " of " + messageCount());
                }
                return message();
            }
            int count = messageStart[local + 1] - messageStart[local];
            if (i < 0 || i >= count) {
                throw new IndexOutOfBoundsException("message " + i + " of " + count);
            }
            incoming.moveTo((long) (messageStart[local] + i) * recordBytes);
            return incoming;
        }

        @Override
        public RecordView message() {
            if (combiner == null) {
                throw new IllegalStateException("message() needs a combiner; without one use messageCount() and message(i)");
            }
            if (!hasMessages()) {
                return identity;
            }
            incoming.moveTo((long) local * recordBytes);
            return incoming;
        }

        @Override
        public double messageDouble() {
            if (doubles == null) {
                throw new IllegalStateException("messageDouble() needs messages of one double with a DoubleCombiner; use message()");
            }
            if (!hasMessages()) {
                return doubles.identity();
            }
            return gathering ? gathered[local] : combined.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, (long) local * recordBytes);
        }

        @Override
        public long messageLong() {
            if (longs == null) {
                throw new IllegalStateException("messageLong() needs messages of one long with a LongCombiner; use message()");
            }
            return hasMessages() ? combined.get(ValueLayout.JAVA_LONG_UNALIGNED, (long) local * recordBytes) : longs.identity();
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

        @Override
        public void sendTo(int target, RecordView message) {
            if (onceOnly) {
                throw new IllegalStateException("this program declares Sends.OUT_NEIGHBOURS_ONCE, so it may not send to a vertex id");
            }
            if (target < 0 || target >= header.vertices()) {
                throw new IndexOutOfBoundsException("no vertex " + target + ": internal ids are 0.." + (header.vertices() - 1));
            }
            deliver(target, message.memory(), message.base());
        }

        @Override
        public void sendToOutNeighbours(RecordView message) {
            if (onceOnly) {
                if (sent) {
                    throw new IllegalStateException("this program declares Sends.OUT_NEIGHBOURS_ONCE, so a vertex sends along its edges at most once per superstep");
                }
                sent = true;
            }
            if (gathering) {
                messagesSent += gather.send(superstep, local, message.getDouble(0));
                return;
            }
            SequentialEdgeIterator s = positioned();
            s.rewindEdges();
            MemorySegment memory = message.memory();
            long base = message.base();
            for (int t; (t = s.nextInt()) >= 0; ) {
                deliver(t, memory, base);
            }
        }

        @Override
        public void sendToAllNeighbours(RecordView message) {
            if (onceOnly) {
                throw new IllegalStateException("this program declares Sends.OUT_NEIGHBOURS_ONCE, so it may not send to all neighbours");
            }
            sendToOutNeighbours(message);
            if (!directed) {
                return;
            }
            requireInEdges("sendToAllNeighbours()");
            for (int i = inEdges.first(local), end = i + inEdges.degree(local); i < end; i++) {
                deliver(inEdges.source(i), message.memory(), message.base());
            }
        }

        @Override
        public void sendTo(int target, double v) {
            outgoing.setDouble(0, v);
            sendTo(target, outgoing);
        }

        @Override
        public void sendToOutNeighbours(double v) {
            if (gathering && !sent) { // PageRank's path, once per vertex: straight to the broadcast slot
                sent = true;
                messagesSent += gather.send(superstep, local, v);
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

    static boolean isAbort(Throwable e) {
        return e instanceof io.rstore.RStoreException rse && rse.code() == io.rstore.ErrorCode.ABORTED;
    }

    private static void closeAll(Mapping[] mappings) {
        for (Mapping m : mappings) {
            if (m != null) {
                m.close();
            }
        }
    }
}

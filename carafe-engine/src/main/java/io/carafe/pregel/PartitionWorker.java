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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * One partition worker. It joins a job knowing only the cluster and the job's namespace:
 * the directory there names the graph, the partitioning, the values, the barrier and the
 * mailbox grid. Setup round: count edges into every partition, allocate its outbox row,
 * write the row into the directory. Then, each superstep: read the inbox column,
 * compute, write the outbox row and the values, report counts and aggregates, wait.
 * When the job gathers ({@link Messaging#GATHER}), the outbox is one value per sending
 * vertex and the inbox is combined along in-edges by {@link Gather} instead.
 * Nothing is allocated per vertex or message.
 */
final class PartitionWorker implements Callable<Void> {
    /** Targets per bucket: 2^18 slots of 8 bytes, 2 MiB, a block that stays in cache while combined (2^16 measured slower). */
    private static final int BUCKET_SHIFT = 18;
    /** Messages a bucket holds before it is combined. */
    private static final int BUCKET_CAPACITY = 1 << 14;

    private final String clusterUri;
    private final RStoreSettings settings;
    private final String jobNamespace;
    private final int index;
    private final Function<String, VertexProgram> programs;
    private final long timeoutMs;
    private VertexProgram program;

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
                program = programs.apply(JobLayout.program(dir));
                int partitions = JobLayout.partitions(dir);
                BarrierLayout layout = new BarrierLayout(partitions, BarrierAreas.bytes(JobLayout.aggregators(dir)));
                try (BarrierWorker barrier = new BarrierWorker(job.raddress(JobLayout.barrierAt(dir)), layout, index)) {
                    try {
                        new Run(rstore, job, directory, barrier).run();
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

    /** The state of one run; fields rather than locals so the context can reach them. */
    private final class Run implements VertexProgram.Context {
        private final RStore rstore;
        private final Namespace job;
        private final Mapping directory;
        private final BarrierWorker barrier;
        private final int partitions;
        private final int aggregators;
        private final long vertexCount;
        private final Partitioning partitioning;
        private final Combiner combiner;
        private final boolean gathering;
        private final int from;
        private final int size;

        private SequentialEdgeIterator scan; // push only: gathering needs the degrees alone
        private Gather gather;
        private Mapping values;
        private MemorySegment valueBytes;
        private final Mapping[] inbox;
        private final long[] inCapacity;
        private final Mapping[] outbox;
        private final long[] outCapacity;
        private final long[] outCount;
        private final long[] inCount;
        // container views by parity, made once: [superstep & 1][partition]
        private final MemorySegment[][] inContainer;
        private final MemorySegment[][] outContainer;
        private final Batch batch = new Batch();

        // inbox, combined: one value per local vertex, and who got one
        private double[] combined;
        private long[] hasMessage;
        // inbox, uncombined: messages grouped by local vertex (counting sort)
        private int[] messageStart;
        private int[] messageNext; // scratch for the counting sort
        private double[] messageValues;
        private int[] rawTarget;
        private double[] rawValue;
        // outbox, combined: one slot per global vertex (identity when untouched) and a bit per vertex
        private double[] outValue;
        private long[] outTouched;
        // propagation blocking: messages wait in buckets by target range, then combine a cache-sized block at a time
        private int[] bucketTarget;
        private double[] bucketValue;
        private int[] bucketFill;

        private final long[] halted;
        private final double[] previousAggregates;
        private final double[] aggregates;
        private long superstep;
        private int vertex;
        private int local;
        private boolean sent;
        private long messagesSent;

        Run(RStore rstore, Namespace job, Mapping directory, BarrierWorker barrier) {
            this.rstore = rstore;
            this.job = job;
            this.directory = directory;
            this.barrier = barrier;
            MemorySegment dir = directory.segment();
            this.partitions = JobLayout.partitions(dir);
            this.aggregators = JobLayout.aggregators(dir);
            this.vertexCount = JobLayout.vertices(dir);
            this.partitioning = new Partitioning(JobLayout.starts(dir), 0, 0);
            this.combiner = JobLayout.combiner(dir);
            this.gathering = JobLayout.messaging(dir) == Messaging.GATHER;
            this.from = partitioning.start(index);
            this.size = partitioning.end(index) - from;
            this.inbox = new Mapping[partitions];
            this.inCapacity = new long[partitions];
            this.outbox = new Mapping[partitions];
            this.outCapacity = new long[partitions];
            this.outCount = new long[partitions];
            this.inCount = new long[partitions];
            this.inContainer = new MemorySegment[2][partitions];
            this.outContainer = new MemorySegment[2][partitions];
            this.halted = new long[(size + 63) >>> 6];
            this.previousAggregates = new double[aggregators];
            this.aggregates = new double[aggregators];
        }

        void run() {
            if (!barrier.awaitStart(0, timeoutMs)) {
                return;
            }
            String graph = JobLayout.graph(directory.segment());
            try (GraphPartition part = gathering ? null : GraphPartition.open(rstore, graph, from, from + size)) {
                if (gathering) {
                    gather = Gather.build(rstore, graph, partitioning, index, combiner);
                } else {
                    scan = part.scan();
                }
                setUp();
                barrier.finish(0);
                if (!barrier.awaitStart(1, timeoutMs)) {
                    return;
                }
                joinInbox();
                for (superstep = 0; ; superstep++) {
                    if (superstep > 0 && !barrier.awaitStart(superstep + 1, timeoutMs)) {
                        return;
                    }
                    step();
                    barrier.finish(superstep + 1);
                }
            } finally {
                closeAll(inbox);
                closeAll(outbox);
                if (gather != null) {
                    gather.close();
                }
                if (values != null) {
                    values.close();
                }
            }
        }

        /**
         * Counts this partition's edges into every partition, sizes and allocates the outbox
         * row, publishes it; when gathering, allocates the one broadcast segment and names it
         * in every cell of the row instead.
         */
        private void setUp() {
            MemorySegment dir = directory.segment();
            if (gathering) {
                RAddress segment = gather.allocate(job);
                for (int j = 0; j < partitions; j++) {
                    JobLayout.setCell(dir, partitions, index, j, segment.address(), gather.slots());
                }
                directory.write(JobLayout.row(partitions, index), JobLayout.rowBytes(partitions));
                mapValues();
                combined = new double[size];
                hasMessage = new long[(size + 63) >>> 6];
                return;
            }
            long[] edgesInto = new long[partitions];
            for (int v; (v = scan.nextVertex()) >= 0; ) {
                for (int t; (t = scan.nextInt()) >= 0; ) {
                    edgesInto[partitioning.partitionOf(t)]++;
                }
            }
            for (int j = 0; j < partitions; j++) {
                long targets = partitioning.end(j) - partitioning.start(j);
                outCapacity[j] = combiner == null ? edgesInto[j] : Math.min(edgesInto[j], targets);
                RAddress segment = job.alloc(MailboxLayout.segmentBytes(outCapacity[j]), AllocFlags.GROW);
                outbox[j] = segment.map(MapFlags.NONE);
                for (int parity = 0; parity < 2; parity++) {
                    outContainer[parity][j] = outbox[j].segment().asSlice(MailboxLayout.container(outCapacity[j], parity));
                }
                JobLayout.setCell(dir, partitions, index, j, segment.address(), outCapacity[j]);
            }
            directory.write(JobLayout.row(partitions, index), JobLayout.rowBytes(partitions));
            mapValues();
            if (combiner != null) {
                combined = new double[size];
                hasMessage = new long[(size + 63) >>> 6];
                outValue = new double[(int) vertexCount];
                Arrays.fill(outValue, combiner.identity());
                outTouched = new long[(int) ((vertexCount + 63) >>> 6)];
                int buckets = (int) ((vertexCount + (1L << BUCKET_SHIFT) - 1) >>> BUCKET_SHIFT);
                bucketTarget = new int[buckets * BUCKET_CAPACITY];
                bucketValue = new double[buckets * BUCKET_CAPACITY];
                bucketFill = new int[buckets];
            }
        }

        private void mapValues() {
            values = job.raddress(JobLayout.valuesAt(directory.segment())).map(8L * from, Math.max(8L * size, 8), MapFlags.NONE);
            valueBytes = values.segment();
        }

        /** Maps the inbox column, now that every worker has published its row. */
        private void joinInbox() {
            directory.read();
            MemorySegment dir = directory.segment();
            if (gathering) {
                for (int j = 0; j < partitions; j++) {
                    gather.join(job, j, JobLayout.cellAddress(dir, partitions, j, index), JobLayout.cellCapacity(dir, partitions, j, index));
                }
                return;
            }
            long total = 0;
            for (int j = 0; j < partitions; j++) {
                inCapacity[j] = JobLayout.cellCapacity(dir, partitions, j, index);
                inbox[j] = job.raddress(JobLayout.cellAddress(dir, partitions, j, index)).map(MapFlags.NONE);
                for (int parity = 0; parity < 2; parity++) {
                    inContainer[parity][j] = inbox[j].segment().asSlice(MailboxLayout.container(inCapacity[j], parity));
                }
                total += inCapacity[j];
            }
            if (combiner == null) {
                if (total > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("partition " + index + " may receive " + total + " messages a superstep; use more workers or a combiner");
                }
                messageStart = new int[size + 1];
                messageNext = new int[size];
                messageValues = new double[(int) total];
                rawTarget = new int[(int) total];
                rawValue = new double[(int) total];
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
            for (int a = 0; a < aggregators; a++) {
                previousAggregates[a] = BarrierAreas.aggregate(coordinator, a);
                aggregates[a] = 0;
            }
            Arrays.fill(outCount, 0);
            messagesSent = 0;
            if (gathering) {
                gather.gather(superstep, combined, hasMessage);
                gather.startStep(superstep);
            } else {
                readInbox();
                scan.restart();
            }
            long active = 0;
            for (local = 0; local < size; local++) {
                vertex = from + local;
                if (scan != null) {
                    scan.nextVertex();
                }
                boolean message = hasMessages();
                boolean wasHalted = (halted[local >>> 6] & (1L << local)) != 0;
                if (superstep == 0 || message || !wasHalted) {
                    halted[local >>> 6] &= ~(1L << local);
                    sent = false;
                    program.compute(this);
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
            for (int a = 0; a < aggregators; a++) {
                BarrierAreas.putAggregate(area, a, aggregates[a]);
            }
        }

        /** Messages written in the previous superstep: the (superstep mod 2) containers of the inbox column. */
        private void readInbox() {
            if (combiner != null) {
                Arrays.fill(hasMessage, 0);
            } else {
                Arrays.fill(messageStart, 0);
            }
            if (superstep == 0) {
                return;
            }
            for (int j = 0; j < partitions; j++) {
                batch.read(inbox[j], MailboxLayout.container(inCapacity[j], superstep), MailboxLayout.HEADER);
            }
            batch.join();
            int parity = (int) (superstep & 1);
            for (int j = 0; j < partitions; j++) {
                inCount[j] = MailboxLayout.count(inContainer[parity][j]);
                if (inCount[j] > inCapacity[j]) {
                    throw new IllegalStateException("mailbox " + j + "->" + index + " claims " + inCount[j] + " messages, room for " + inCapacity[j]);
                }
                if (inCount[j] > 0) {
                    batch.read(inbox[j], MailboxLayout.container(inCapacity[j], superstep) + MailboxLayout.HEADER, inCount[j] * MailboxLayout.MESSAGE);
                }
            }
            batch.join();
            int raw = 0;
            for (int j = 0; j < partitions; j++) {
                MemorySegment container = inContainer[parity][j];
                for (long i = 0; i < inCount[j]; i++) {
                    int target = MailboxLayout.target(container, i) - from;
                    double value = MailboxLayout.value(container, i);
                    if (combiner != null) {
                        long bit = 1L << target;
                        if ((hasMessage[target >>> 6] & bit) == 0) {
                            hasMessage[target >>> 6] |= bit;
                            combined[target] = value;
                        } else {
                            combined[target] = combiner.combine(combined[target], value);
                        }
                    } else {
                        rawTarget[raw] = target;
                        rawValue[raw++] = value;
                        messageStart[target + 1]++;
                    }
                }
            }
            if (combiner == null) { // group by target: counting sort
                for (int v = 0; v < size; v++) {
                    messageStart[v + 1] += messageStart[v];
                }
                int[] next = messageNext;
                System.arraycopy(messageStart, 0, next, 0, size);
                for (int i = 0; i < raw; i++) {
                    messageValues[next[rawTarget[i]]++] = rawValue[i];
                }
            }
        }


        /** Encodes and writes the ((superstep + 1) mod 2) containers of the outbox row, all posted together. */
        private void writeOutbox() {
            if (combiner != null) {
                for (int b = 0; b < bucketFill.length; b++) {
                    combineBucket(b);
                }
            }
            long parity = superstep + 1;
            for (int j = 0; j < partitions; j++) {
                MemorySegment container = outContainer[(int) (parity & 1)][j];
                if (combiner != null) {
                    outCount[j] = drainCombined(container, partitioning.start(j), partitioning.end(j));
                }
                MailboxLayout.setCount(container, outCount[j]);
                batch.write(outbox[j], MailboxLayout.container(outCapacity[j], parity), MailboxLayout.HEADER + outCount[j] * MailboxLayout.MESSAGE);
            }
            batch.join();
        }

        private void combineBucket(int b) {
            int from = b * BUCKET_CAPACITY;
            int to = from + bucketFill[b];
            for (int i = from; i < to; i++) {
                int t = bucketTarget[i];
                outValue[t] = combiner.combine(outValue[t], bucketValue[i]);
                outTouched[t >>> 6] |= 1L << t;
            }
            bucketFill[b] = 0;
        }

        /**
         * Encodes the combined messages for targets in {@code [start, end)}, in ascending
         * order (so the receiver combines them sequentially), and resets their slots.
         */
        private long drainCombined(MemorySegment container, int start, int end) {
            long count = 0;
            double identity = combiner.identity();
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
                    MailboxLayout.put(container, count++, t, outValue[t]);
                    outValue[t] = identity;
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
        private void deliver(int target, double value) {
            messagesSent++;
            if (combiner != null) {
                int b = target >>> BUCKET_SHIFT;
                int at = b * BUCKET_CAPACITY + bucketFill[b];
                bucketTarget[at] = target;
                bucketValue[at] = value;
                if (++bucketFill[b] == BUCKET_CAPACITY) {
                    combineBucket(b);
                }
                return;
            }
            int j = partitioning.partitionOf(target);
            if (outCount[j] >= outCapacity[j]) {
                throw new IllegalStateException("mailbox " + index + "->" + j + " is full (" + outCapacity[j]
                        + " messages, one per edge): a vertex program may send one message per out-edge per superstep");
            }
            MailboxLayout.put(outContainer[(int) ((superstep + 1) & 1)][j], outCount[j]++, target, value);
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
        public int vertex() {
            return vertex;
        }

        @Override
        public int outDegree() {
            return gathering ? gather.degree(local) : scan.degree();
        }

        @Override
        public double value() {
            return valueBytes.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, local);
        }

        @Override
        public void setValue(double value) {
            valueBytes.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, local, value);
        }

        @Override
        public boolean hasMessages() {
            if (combiner != null) {
                return (hasMessage[local >>> 6] & (1L << local)) != 0;
            }
            return messageStart[local + 1] > messageStart[local];
        }

        @Override
        public double message() {
            if (combiner == null) {
                throw new IllegalStateException("message() needs a combiner; without one use messageCount() and messageAt(i)");
            }
            return hasMessages() ? combined[local] : combiner.identity();
        }

        @Override
        public int messageCount() {
            if (combiner != null) {
                return hasMessages() ? 1 : 0;
            }
            return messageStart[local + 1] - messageStart[local];
        }

        @Override
        public double messageAt(int i) {
            if (combiner != null) {
                return message();
            }
            return messageValues[messageStart[local] + i];
        }

        @Override
        public void sendToNeighbours(double value) {
            startSending();
            if (gathering) {
                messagesSent += gather.send(superstep, local, value);
                return;
            }
            for (int t; (t = scan.nextInt()) >= 0; ) {
                deliver(t, value);
            }
        }

        @Override
        public void sendToNeighboursPlusWeight(double value) {
            if (gathering) {
                throw new IllegalStateException("this job gathers, which moves one value per vertex: a program that adds edge weights"
                        + " must not declare broadcastsToNeighbours()");
            }
            startSending();
            for (int t; (t = scan.nextInt()) >= 0; ) {
                deliver(t, value + scan.weight());
            }
        }

        private void startSending() {
            if (sent) {
                throw new IllegalStateException("a vertex sends along its edges at most once per superstep");
            }
            sent = true;
        }

        @Override
        public void voteToHalt() {
            halted[local >>> 6] |= 1L << local;
        }

        @Override
        public void aggregate(int i, double value) {
            aggregates[i] += value;
        }

        @Override
        public double aggregated(int i) {
            return previousAggregates[i];
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

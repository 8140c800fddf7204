package io.carafe.pregel;

import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.MetricNames;
import io.rstore.RStore;
import io.rstore.barrier.BarrierWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One partition worker's rounds of the global barrier. Round 0 (setup): the message channel
 * allocates what the others read and names it in the directory, the values are mapped.
 * Round 1: the channel maps the other partitions'. Round k ≥ 2: superstep
 * {@code first + k - 2}: receive, compute every vertex that is active or has messages,
 * finish the channel, write the values that changed if other workers read them next
 * superstep, report counts and aggregates. At the coordinator's HALT: write the values that
 * changed since the last write, which is the job's result.
 */
final class SuperstepLoop {
    /** Words of 64 vertices between two looks at the coordinator's flag during a superstep (262,144 vertices). */
    private static final int ABORT_CHECK_WORDS = 4096;

    private final RStore rstore;
    private final WorkerJob worker;
    private final BarrierWorker barrier;
    private final long timeoutMs;
    private final JobLayout.Header header;
    private final VertexProgram program;
    private final Declaration declared;
    private final int from;
    private final int size;
    private final long valueBytes;
    private final long first;           // the first superstep: 0, or the checkpoint a restarted job goes on from
    private final int checkpointEvery;  // 0: none
    private final Path checkpoints;     // the job's checkpoint directory, or null
    private final long[] halted;        // bit u: local vertex u voted to halt
    private final long[] computedWords; // bit w: a vertex of halted's word w computed this superstep
    private final Batch valueWrites = new Batch();
    private final boolean selective;    // the program says which vertices accept messages (Declaration.accepting)
    private final boolean newerValues;  // the program reads values as this superstep changes them (Declaration.readingNewerValues)
    private final long[] accepting;     // if selective, bit u: local vertex u accepts, as its value stands; else null
    private final RecordView probe;     // a vertex's value, read to ask it that
    private final int[] localStarts;    // the local vertices that compute in superstep 0 (startVertices), or null: all

    private MessageChannel channel;
    private Mapping values;
    private ValueSnapshots snapshots; // when the program reads other vertices' values
    private VertexContext context;

    SuperstepLoop(RStore rstore, WorkerJob worker, BarrierWorker barrier, long timeoutMs) {
        this.rstore = rstore;
        this.worker = worker;
        this.barrier = barrier;
        this.timeoutMs = timeoutMs;
        this.header = worker.header();
        this.program = worker.program();
        this.declared = worker.declared();
        this.from = worker.from();
        this.size = worker.size();
        this.valueBytes = header.valueBytes();
        this.first = header.firstSuperstep();
        this.checkpointEvery = header.checkpointEvery();
        this.checkpoints = header.checkpointDirectory().isEmpty() ? null : Path.of(header.checkpointDirectory());
        this.halted = new long[(size + 63) >>> 6];
        this.computedWords = new long[(halted.length + 63) >>> 6];
        this.selective = !declared.acceptsAll();
        this.newerValues = declared.readsNewerValues();
        this.accepting = selective ? new long[halted.length] : null;
        this.probe = new RecordView(declared.value());
        int[] starts = program.startVertices();
        this.localStarts = starts == null ? null : Arrays.stream(starts).filter(v -> v >= from && v < from + size).map(v -> v - from).toArray();
    }

    /** The channel the job's messaging asks for, chosen once for every superstep. */
    private MessageChannel openChannel() {
        return switch (header.messaging()) {
            case GATHER -> new GatherChannel(worker, accepting, true);
            case HYBRID -> new HybridChannel(worker, accepting);
            case PUSH -> declared.sending() == Declaration.Sending.NOTHING ? new NoMessages(size) : new PushChannel(worker);
            case AUTO -> throw new IllegalStateException("the job directory holds AUTO messaging: the coordinator resolves it before it writes it");
        };
    }

    /** Runs from inside round 0 (the worker saw its START and built the graph) until the coordinator halts the job. */
    void run() {
        try {
            channel = openChannel();
            setUp();
            if (first > 0) {
                restore();
            }
            barrier.finish(0);
            // round 1: every partition has named its containers, so each can map the others' (setup, not superstep 0)
            if (!barrier.awaitStart(1, timeoutMs)) {
                return;
            }
            channel.join();
            barrier.finish(1);
            // round k >= 2 runs superstep first + k - 2: rounds stay consecutive after a restart
            for (long superstep = first; ; superstep++) {
                if (!barrier.awaitStart(superstep - first + 2, timeoutMs)) {
                    writeComputedValues(); // the job's result: the coordinator reads it once every worker has ended
                    return;
                }
                step(superstep);
                if (checkpointEvery > 0 && (superstep + 1) % checkpointEvery == 0) {
                    checkpoint(superstep + 1);
                }
                barrier.finish(superstep - first + 2);
            }
        } finally {
            close();
        }
    }

    /** The channel's setup, this worker's directory row, the values (zeroed) and their snapshots. */
    private void setUp() {
        channel.setUp();
        Mapping directory = worker.directory();
        directory.write(JobLayout.row(worker.partitions(), worker.index()), JobLayout.rowBytes(worker.partitions()));
        values = worker.job().raddress(header.valuesAt()).map(valueBytes * from, Math.max(valueBytes * size, 8), MapFlags.NONE);
        values.segment().fill((byte) 0); // values start zeroed; local memory holds whatever it last held
        askAlike();
        if (declared.readsOtherValues()) {
            snapshots = new ValueSnapshots(worker.job().raddress(header.valuesAt()), valueBytes, header.vertices(), from, size, values.segment(),
                    worker.shared());
        }
        context = new VertexContext(worker, channel, values.segment(), snapshots, halted);
    }

    private void step(long superstep) {
        long bytesBefore = bytesMoved();
        context.startSuperstep(superstep, barrier.coordinatorArea(), header.aggregators());
        if (snapshots != null) {
            snapshots.read(superstep);
        }
        channel.receive(superstep);
        long[] arrived = channel.arrivals();
        VertexProgram program = this.program;
        VertexContext context = this.context;
        boolean everyVertex = superstep == 0 && localStarts == null; // superstep 0 computes every vertex, or only the starts
        if (superstep == 0 && localStarts != null) {
            startAtTheStarts();
        }
        long active = 0;
        long computed = 0;
        // 64 vertices at a time: only those not halted or with messages can compute, so a
        // superstep with few of them costs a pass over words, not over vertices. The body
        // stays in the loop: in a method of its own, WCC by hooking computed slower.
        for (int w = 0; w < halted.length; w++) {
            long candidates = everyVertex ? -1L : ~halted[w] | arrived[w];
            if (w == halted.length - 1 && (size & 63) != 0) {
                candidates &= (1L << size) - 1; // no vertices past the partition's last
            }
            boolean wordComputed = false;
            for (; candidates != 0; candidates &= candidates - 1) {
                int local = (w << 6) + Long.numberOfTrailingZeros(candidates);
                long bit = 1L << local;
                // asked once, before compute changes the value: messages that arrived and that the vertex accepts
                boolean accepted = (arrived[w] & bit) != 0 && (!selective || (accepting[w] & bit) != 0);
                if (everyVertex || accepted || (halted[w] & bit) == 0) {
                    halted[w] &= ~bit;
                    context.at(local, from + local, accepted);
                    program.compute(context);
                    if (newerValues) {
                        snapshots.show(local); // others of this process may read it now
                    }
                    if (selective) { // only compute changes a value: asked again now, not for every vertex in every gather
                        accepting[w] = accepts(local) ? accepting[w] | bit : accepting[w] & ~bit;
                    }
                    wordComputed = true;
                    computed++;
                    if ((halted[w] & bit) == 0) {
                        active++;
                    }
                }
            }
            if (wordComputed) {
                computedWords[w >>> 6] |= 1L << w; // the word's values may have changed: to be written
            }
            if ((w & ABORT_CHECK_WORDS - 1) == ABORT_CHECK_WORDS - 1) {
                barrier.checkNotAborted(); // a job stopped at its memory bound stops here, not at the end of a superstep that grows
            }
        }
        long messages = context.messagesSent();
        boolean dense = channel.finish(messages);
        if (snapshots != null) { // others read the values in the next superstep; else nobody reads them before the job ends
            writeComputedValues();
            snapshots.publish(superstep);
        }
        MemorySegment area = barrier.area();
        BarrierAreas.putLong(area, BarrierAreas.ACTIVE, active);
        BarrierAreas.putLong(area, BarrierAreas.MESSAGES, messages);
        BarrierAreas.putLong(area, BarrierAreas.BYTES, bytesMoved() - bytesBefore);
        BarrierAreas.putLong(area, BarrierAreas.COMPUTED, computed);
        BarrierAreas.putLong(area, BarrierAreas.DENSE, dense ? 1 : 0);
        context.publishAggregates(area);
    }

    /**
     * Superstep 0 of a program that declares {@link VertexProgram#startVertices}: every local
     * vertex holds the program's initial value and is halted, but the starts, which compute.
     * All the values are written, as when every vertex computes.
     */
    private void startAtTheStarts() {
        MemorySegment memory = values.segment();
        if (size > 0) {
            program.initialValue(probe.wrap(memory, 0));
            for (long filled = valueBytes, total = valueBytes * size; filled < total; filled *= 2) { // the first record, doubling
                MemorySegment.copy(memory, 0, memory, filled, Math.min(filled, total - filled));
            }
        }
        askAlike();
        Arrays.fill(halted, -1L);
        for (int u : localStarts) {
            halted[u >>> 6] &= ~(1L << u);
        }
        Arrays.fill(computedWords, -1L);
    }

    /**
     * A selective program's bits of which local vertices accept messages, when every value is
     * alike (zeroed, or the initial value): asked of the first. Compute keeps them after that.
     */
    private void askAlike() {
        if (selective) {
            Arrays.fill(accepting, size > 0 && accepts(0) ? -1L : 0);
        }
    }

    /** As {@link #askAlike}, asked of each value: restored from a checkpoint. */
    private void askEveryVertex() {
        if (!selective) {
            return;
        }
        Arrays.fill(accepting, 0);
        for (int u = 0; u < size; u++) {
            if (accepts(u)) {
                accepting[u >>> 6] |= 1L << u;
            }
        }
    }

    /** Whether local vertex {@code u} accepts messages, as its value stands (the program declares {@link Declaration#accepting}). */
    private boolean accepts(int u) {
        probe.wrap(values.segment(), u * valueBytes);
        return declared.accepts(probe);
    }

    /**
     * Writes the values of the words of 64 vertices that had vertices computing since the
     * last write, consecutive words as one write: only compute changes a value, and superstep
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
        Arrays.fill(computedWords, 0);
        valueWrites.join();
    }

    /** Bytes this worker's client has read and written through RStore so far (0 with metrics off). */
    private long bytesMoved() {
        var metrics = rstore.metrics();
        return metrics.meter(MetricNames.READ_BYTES).getCount() + metrics.meter(MetricNames.WRITE_BYTES).getCount();
    }

    /**
     * This worker's part of the checkpoint that superstep {@code next} starts from: its
     * values, halted bits and what it sent for {@code next} to read, on disk before it
     * reports the superstep finished.
     */
    private void checkpoint(long next) {
        List<MemorySegment> sections = new ArrayList<>();
        sections.add(values.segment());
        sections.add(MemorySegment.ofArray(halted));
        sections.addAll(channel.sent(next));
        Checkpoints.writeWorker(checkpoints, next, worker.index(), sections);
    }

    /** A restarted job: values, halted bits and sent messages as the checkpoint of superstep {@code first} holds them. */
    private void restore() {
        int index = worker.index();
        try (Arena files = Arena.ofConfined()) {
            List<MemorySegment> sections = Checkpoints.readWorker(checkpoints, first, index, files);
            MemorySegment savedValues = sections.get(0);
            MemorySegment savedHalted = sections.get(1);
            if (savedValues.byteSize() != values.segment().byteSize() || savedHalted.byteSize() != 8L * halted.length) {
                throw new IllegalStateException("checkpoint " + first + " holds " + savedValues.byteSize() + " bytes of values for partition "
                        + index + ", which has " + values.segment().byteSize() + ": another partitioning or program");
            }
            MemorySegment.copy(savedValues, 0, values.segment(), 0, savedValues.byteSize());
            values.write();
            askEveryVertex();
            if (snapshots != null) {
                snapshots.publish(first - 1); // what superstep first reads: the values it starts from
            }
            MemorySegment.copy(savedHalted, 0, MemorySegment.ofArray(halted), 0, savedHalted.byteSize());
            int expected = 2 + channel.checkpointSections();
            if (sections.size() != expected) {
                throw new IllegalStateException("checkpoint " + first + " holds " + sections.size() + " sections for partition " + index
                        + ", a " + header.messaging().name().toLowerCase(Locale.ROOT) + " job writes " + expected
                        + ": it was written with other messaging; resume with the PregelJob.Options.messaging it ran with");
            }
            channel.resend(first, sections.subList(2, sections.size()));
        }
    }

    private void close() {
        try (WorkerGraph graph = worker.graph()) {
            if (channel != null) {
                channel.close();
            }
            if (snapshots != null) {
                snapshots.close();
            }
            if (values != null) {
                values.close();
            }
        }
    }
}

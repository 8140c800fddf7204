package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.NeighbourhoodReader;
import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.barrier.BarrierCoordinator;
import io.rstore.barrier.BarrierLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * Runs a vertex program over a graph in RStore: the coordinator side of the BSP engine.
 * It partitions the graph, lays out the job in its own namespace (directory, values,
 * barrier region; the workers add the mailbox grid), starts one worker per partition —
 * threads with their own RStore clients that coordinate only through RStore (they share
 * the read caches of {@code GatheredArrays}), or processes — and drives the
 * supersteps through the global barrier until the master step or quiescence stops them.
 */
public final class PregelJob {
    private static final AtomicInteger JOBS = new AtomicInteger();

    /**
     * @param workers           partitions, one worker each
     * @param vertexWeight      a in weight(v) = a + b·degree(v)
     * @param edgeWeight        b
     * @param maxSupersteps     bound on supersteps
     * @param superstepTimeoutMs bound on any one superstep (and on setup)
     * @param messaging         how messages travel (AUTO: gather when the program allows it)
     * @param neighbourhoodCacheBytes each worker's cache of other partitions' edges, for programs that read neighbourhoods
     * @param maxMemoryBytes    bound on the resident memory of this process and its worker processes while the job runs
     *                          (a {@link MemoryLimitException} past it); {@link #AVAILABLE_MEMORY}: what they hold when the
     *                          job starts plus what the machine has available then; 0: no bound
     * @param progress          told each superstep as the coordinator saw it, once the next has started or the job ends (null: nobody)
     * @param recovery          checkpoints and restarts ({@link Recovery#NONE}: neither)
     * @param gatherPlans       a directory where a gathering job keeps what its setup makes of the graph and partitioning
     *                          ({@link GatherPlan}) and where the next job of the same finds it (null: made each job, not kept);
     *                          any directory will do, plans of many graphs can share it, and deleting it costs only that work
     */
    public record Options(int workers, double vertexWeight, double edgeWeight, long maxSupersteps, long superstepTimeoutMs,
                          Messaging messaging, long neighbourhoodCacheBytes, long maxMemoryBytes, Consumer<Superstep> progress,
                          Recovery recovery, Path gatherPlans) {
        /** Each worker's cache of other partitions' edges, for programs that read neighbourhoods: 64 MiB unless set. */
        public static final long DEFAULT_NEIGHBOURHOOD_CACHE_BYTES = 64L << 20;
        /** maxMemoryBytes: what the job's processes hold when it starts plus what the machine (or cgroup) has available then. */
        public static final long AVAILABLE_MEMORY = -1;

        public Options {
            Objects.requireNonNull(messaging, "messaging");
            Objects.requireNonNull(recovery, "recovery");
            if (workers < 1 || workers > 1024) {
                throw new IllegalArgumentException("PregelJob.Options.workers must be 1..1024, was " + workers);
            }
            if (maxSupersteps < 1) {
                throw new IllegalArgumentException("the superstep bound must be >= 1, was " + maxSupersteps);
            }
            if (superstepTimeoutMs < 1) {
                throw new IllegalArgumentException("the superstep timeout must be >= 1 ms, was " + superstepTimeoutMs);
            }
            if (neighbourhoodCacheBytes < NeighbourhoodReader.MIN_CACHE_BYTES) {
                throw new IllegalArgumentException("PregelJob.Options.neighbourhoodCacheBytes must be at least " + (NeighbourhoodReader.MIN_CACHE_BYTES >> 20)
                        + "MiB, was " + neighbourhoodCacheBytes + " bytes");
            }
            if (maxMemoryBytes < AVAILABLE_MEMORY) {
                throw new IllegalArgumentException("PregelJob.Options.maxMemoryBytes must be a size, 0 (no bound) or AVAILABLE_MEMORY, was " + maxMemoryBytes);
            }
        }

        public static Options defaults(int workers) {
            return new Options(workers, 1, 1, 10_000, 600_000, Messaging.AUTO, DEFAULT_NEIGHBOURHOOD_CACHE_BYTES, AVAILABLE_MEMORY, null,
                    Recovery.NONE, null);
        }

        public Options withMaxSupersteps(long n) {
            return new Options(workers, vertexWeight, edgeWeight, n, superstepTimeoutMs, messaging, neighbourhoodCacheBytes, maxMemoryBytes,
                    progress, recovery, gatherPlans);
        }

        public Options withMessaging(Messaging m) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, m, neighbourhoodCacheBytes, maxMemoryBytes,
                    progress, recovery, gatherPlans);
        }

        public Options withNeighbourhoodCacheBytes(long bytes) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, messaging, bytes, maxMemoryBytes, progress,
                    recovery, gatherPlans);
        }

        public Options withMaxMemoryBytes(long bytes) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, messaging, neighbourhoodCacheBytes, bytes,
                    progress, recovery, gatherPlans);
        }

        public Options withProgress(Consumer<Superstep> p) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, messaging, neighbourhoodCacheBytes,
                    maxMemoryBytes, p, recovery, gatherPlans);
        }

        public Options withRecovery(Recovery r) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, messaging, neighbourhoodCacheBytes,
                    maxMemoryBytes, progress, r, gatherPlans);
        }

        public Options withGatherPlans(Path directory) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, messaging, neighbourhoodCacheBytes,
                    maxMemoryBytes, progress, recovery, directory);
        }
    }

    /**
     * Checkpoints and restarts: after every {@code every} supersteps (0: never) the job
     * writes a checkpoint into {@code directory}, a directory of its own (removed when the
     * job ends); when a worker fails (its thread throws, its process dies) the job starts a
     * new set of workers from the latest complete checkpoint, at most {@code maxRestarts}
     * times, telling {@code onRestart} each time. Without a checkpoint a failure fails the
     * job at once. With {@code resume} the job starts from the latest complete checkpoint
     * already in {@code directory} (its coordinator died before: carafe resume).
     */
    public record Recovery(int every, Path directory, int maxRestarts, Consumer<Restart> onRestart, boolean resume) {
        public static final Recovery NONE = new Recovery(0, null, 0, r -> { }, false);

        public Recovery {
            if (every < 0 || maxRestarts < 0) {
                throw new IllegalArgumentException("PregelJob.Recovery.every and PregelJob.Recovery.maxRestarts must be >= 0, were " + every + " and " + maxRestarts);
            }
            if (every > 0 && directory == null) {
                throw new IllegalArgumentException("checkpoints need a directory (PregelJob.Recovery.directory)");
            }
            Objects.requireNonNull(onRestart, "onRestart");
        }
    }

    /**
     * A failure the job survived: where it happened (-1: the coordinator's command died,
     * and the job was resumed), what it was, and the checkpoint the new workers started from.
     */
    public record Restart(long failedInSuperstep, String failure, long resumedFrom) {
    }

    /**
     * One superstep as the coordinator saw it: vertices that ran compute, those still
     * active after it (not halted), messages sent, partitions that published their
     * messages for gathering rather than pushing them (dense; see {@link Messaging#HYBRID});
     * aggregates as doubles (a long aggregator's value converted).
     */
    public record Superstep(long index, double seconds, long computedVertices, long activeVertices, long messages, long bytesMoved,
                            int densePartitions, double[] aggregates) {
    }

    /**
     * The outcome: the supersteps run, and every vertex's value, still in the job's
     * namespace in RStore, read a window at a time ({@link #forEachValue}) so the
     * coordinator's memory does not grow with the graph. Closing it deletes the job.
     */
    public static final class Result implements AutoCloseable {
        private static final long WINDOW_BYTES = 4L << 20;
        private final RStore rstore;
        private final String jobName;
        private final RAddress values;
        private final RecordLayout valueLayout;
        private final long vertexCount;
        private final List<Superstep> supersteps;
        private final boolean stoppedByMaster;
        private final Partitioning partitioning;
        private final Messaging messaging;
        private final double setupSeconds;
        private final double computeSeconds;
        private List<Restart> restarts = List.of();
        private boolean closed;

        Result(RStore rstore, String jobName, RAddress values, RecordLayout valueLayout, long vertexCount, List<Superstep> supersteps,
               boolean stoppedByMaster, Partitioning partitioning, Messaging messaging, double setupSeconds, double computeSeconds) {
            this.rstore = rstore;
            this.jobName = jobName;
            this.values = values;
            this.valueLayout = valueLayout;
            this.vertexCount = vertexCount;
            this.supersteps = List.copyOf(supersteps);
            this.stoppedByMaster = stoppedByMaster;
            this.partitioning = partitioning;
            this.messaging = messaging;
            this.setupSeconds = setupSeconds;
            this.computeSeconds = computeSeconds;
        }

        /** Called for each vertex in id order with its value; the record is a flyweight, valid during the call. */
        public interface ValueVisitor {
            void visit(int vertex, RecordView value) throws IOException;
        }

        /** Streams every vertex's value out of RStore, a window of about 4 MiB at a time. */
        public void forEachValue(ValueVisitor visitor) throws IOException {
            if (closed) {
                throw new IllegalStateException("the result is closed: its job and values are gone");
            }
            int bytes = valueLayout.bytes();
            long perWindow = Math.max(1, WINDOW_BYTES / bytes);
            RecordView record = new RecordView(valueLayout);
            for (long first = 0; first < vertexCount; first += perWindow) {
                long n = Math.min(perWindow, vertexCount - first);
                try (Mapping m = values.map(first * bytes, n * bytes, MapFlags.READ_ONLY | MapFlags.PREFETCH)) {
                    record.wrap(m.segment(), 0);
                    for (int i = 0; i < n; i++) {
                        record.moveTo((long) i * bytes);
                        visitor.visit((int) (first + i), record);
                    }
                }
            }
        }

        /** Every vertex's double at {@code offset} of its value, in one array (for checks; a graph's worth of memory). */
        public double[] doubles(long offset) {
            double[] out = new double[(int) vertexCount];
            visit((v, r) -> out[v] = r.getDouble(offset));
            return out;
        }

        /** Every vertex's long at {@code offset} of its value, in one array (for checks; a graph's worth of memory). */
        public long[] longs(long offset) {
            long[] out = new long[(int) vertexCount];
            visit((v, r) -> out[v] = r.getLong(offset));
            return out;
        }

        private void visit(ValueVisitor visitor) {
            try {
                forEachValue(visitor);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public RecordLayout valueLayout() {
            return valueLayout;
        }

        public long vertexCount() {
            return vertexCount;
        }

        public List<Superstep> supersteps() {
            return supersteps;
        }

        public boolean stoppedByMaster() {
            return stoppedByMaster;
        }

        public Partitioning partitioning() {
            return partitioning;
        }

        public Messaging messaging() {
            return messaging;
        }

        public double setupSeconds() {
            return setupSeconds;
        }

        /** The failures the job survived by restarting from a checkpoint, in order. */
        public List<Restart> restarts() {
            return restarts;
        }

        public double computeSeconds() {
            return computeSeconds;
        }

        /** Deletes the job's namespace and its values. */
        @Override
        public void close() {
            if (!closed) {
                closed = true;
                deleteJob(rstore, jobName);
            }
        }
    }

    private PregelJob() {
    }

    /** Runs the job with its workers as threads of this process. The result holds the job's values in RStore until it is closed. */
    public static Result run(RStore rstore, String graph, VertexProgram program, Options options) {
        try (Workers threads = new ThreadWorkers(program, rstore.settings(), options.workers(), options.superstepTimeoutMs())) {
            return run(rstore, graph, program, options, threads);
        }
    }

    /**
     * What a worker in another process runs (carafe worker): joins job {@code jobNamespace}
     * as worker {@code index}, building the program from the spec in the job's directory.
     */
    public static void work(String clusterUri, RStoreSettings settings, String jobNamespace, int index,
                            Function<String, VertexProgram> programs, long timeoutMs) {
        work(clusterUri, settings, () -> jobNamespace, index, programs, timeoutMs);
    }

    /**
     * {@link #work} for a worker started before its job: it connects first, then asks
     * {@code jobNamespace} for the job (null: none came, and it returns).
     */
    public static void work(String clusterUri, RStoreSettings settings, Supplier<String> jobNamespace, int index,
                            Function<String, VertexProgram> programs, long timeoutMs) {
        new PartitionWorker(clusterUri, settings, jobNamespace, index, programs, timeoutMs, new GatheredArrays()).call();
    }

    /**
     * Runs the job with workers started by {@code workerStarter} (threads, or processes that
     * join through RStore). The result holds the job's values in RStore until it is closed.
     */
    public static Result run(RStore rstore, String graph, VertexProgram program, Options options, Workers workerStarter) {
        Declaration declared = check(program);
        Recovery recovery = options.recovery();
        Path checkpoints = recovery.every() == 0 ? null : recovery.directory();
        Job job = new Job(rstore, graph, program, declared, options, workerStarter, recovery.every(), checkpoints, List.copyOf(program.aggregators()),
                program.globals());
        List<Restart> restarts = new ArrayList<>();
        Checkpoints.CoordinatorState restored = null;
        if (recovery.resume()) {
            long latest = Checkpoints.latest(checkpoints);
            if (latest < 0) {
                throw new PregelException("no complete checkpoint in " + checkpoints + " to resume from", null);
            }
            restored = Checkpoints.readCoordinator(checkpoints, latest, program);
            Restart resumed = new Restart(-1, "the job's command died; resumed", latest);
            restarts.add(resumed);
            recovery.onRestart().accept(resumed);
        }
        try {
            while (true) {
                RuntimeException failure;
                long failedIn;
                try {
                    Result result = attempt(job, restored);
                    result.restarts = List.copyOf(restarts);
                    return result;
                } catch (MemoryLimitException tooBig) {
                    throw tooBig; // a restart would pass the bound again
                } catch (AttemptFailed f) {
                    failure = f.failure();
                    failedIn = f.superstep;
                } catch (RuntimeException f) { // in setup
                    failure = f;
                    failedIn = -1;
                }
                long latest = Checkpoints.latest(checkpoints);
                if (latest < 0 || restarts.size() >= recovery.maxRestarts()) {
                    throw restarts.isEmpty() && latest < 0 ? failure : new PregelException(failure.getMessage()
                            + (latest < 0 ? " (no checkpoint to restart from yet)" : " (after " + restarts.size() + " restart(s), PregelJob.Recovery.maxRestarts "
                            + recovery.maxRestarts() + ")"), failure);
                }
                restored = Checkpoints.readCoordinator(checkpoints, latest, program);
                Restart restart = new Restart(failedIn, failure.getMessage(), latest);
                restarts.add(restart);
                recovery.onRestart().accept(restart);
            }
        } finally {
            Checkpoints.delete(checkpoints);
        }
    }

    /**
     * What every attempt of one job shares, gathered and checked once by {@code run}: where it
     * runs, the program and what it declares, the options, where checkpoints go.
     */
    private record Job(RStore rstore, String graph, VertexProgram program, Declaration declared, Options options, Workers workerStarter,
                       int checkpointEvery, Path checkpoints, List<Aggregator> aggregators, int globals) {
    }

    /** A failure once the workers ran, with the superstep it struck in (-1: their setup): what a restart records. */
    private static final class AttemptFailed extends RuntimeException {
        final long superstep;

        AttemptFailed(RuntimeException failure, long superstep) {
            super(failure.getMessage(), failure, false, false);
            this.superstep = superstep;
        }

        RuntimeException failure() {
            return (RuntimeException) getCause();
        }
    }

    /** One set of workers from superstep 0, or from checkpoint {@code restored}. */
    private static Result attempt(Job job, Checkpoints.CoordinatorState restored) {
        long setupStart = System.nanoTime();
        RStore rstore = job.rstore();
        String graph = job.graph();
        VertexProgram program = job.program();
        Options options = job.options();
        Declaration declared = job.declared();
        Messaging messaging = restored == null || options.messaging() != Messaging.AUTO ? options.messaging().resolve(declared) : restored.messaging();
        GraphHeader header = CarafeGraph.header(rstore, graph);
        checkStarts(program, header.vertexCount());
        Partitioning partitioning = Partitioning.compute(rstore, graph, options.workers(), options.vertexWeight(), options.edgeWeight());
        int partitions = partitioning.partitions();
        List<Aggregator> aggregators = job.aggregators();
        int globals = job.globals();
        RecordLayout valueLayout = declared.value();
        String jobName = "carafe/job/" + graph + "-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
        Namespace space = rstore.createNamespace(jobName);
        BarrierLayout layout = new BarrierLayout(partitions, BarrierAreas.bytes(aggregators.size(), globals));
        List<Future<Void>> workers = new ArrayList<>();
        boolean handedOver = false;
        try {
            RAddress directorySegment = space.bootstrap(JobLayout.bytes(partitions));
            RAddress valuesSegment = space.alloc(ValueSnapshots.segmentBytes(valueLayout.bytes(), header.vertexCount(), declared.readsOtherValues()),
                    AllocFlags.GROW | AllocFlags.ZERO);
            RAddress barrierSegment = space.alloc(layout.totalBytes(), AllocFlags.GROW | AllocFlags.ZERO);
            try (Mapping directory = directorySegment.map(MapFlags.NONE)) {
                JobLayout.writeHeader(directory.segment(), new JobLayout.Header(partitions, aggregators.size(), globals, header.vertexCount(),
                        header.edgeCount(), valueLayout.bytes(), declared.messageBytes(), valuesSegment.address(),
                        barrierSegment.address(), messaging, graph, program.spec(), partitioning.starts(),
                        restored == null ? 0 : restored.superstep(), job.checkpointEvery(), job.checkpoints() == null ? "" : job.checkpoints().toString(),
                        options.neighbourhoodCacheBytes(), options.gatherPlans() == null ? "" : options.gatherPlans().toString()));
                directory.write();
            }
            try (BarrierCoordinator coordinator = new BarrierCoordinator(barrierSegment, layout)) {
                for (int i = 0; i < partitions; i++) {
                    workers.add(job.workerStarter().start(rstore.uri(), jobName, i));
                }
                MemoryBound memory = new MemoryBound(options.maxMemoryBytes(), job.workerStarter());
                Heartbeats heartbeats = new Heartbeats(partitions, options.superstepTimeoutMs(), job.workerStarter()::describe);
                LongConsumer watch = superstep -> { // between barrier polls
                    failFast(workers);
                    heartbeats.check(coordinator, superstep);
                    memory.check(superstep);
                };
                Drive drive = new Drive(job, coordinator, layout, header, setupStart, watch, restored, messaging);
                try {
                    drive.run();
                } catch (RuntimeException failure) {
                    coordinator.abort();
                    RuntimeException explained = explain(failure, workers, options);
                    throw explained instanceof MemoryLimitException ? explained : new AttemptFailed(explained, drive.superstep);
                }
                awaitWorkers(workers, options);
                handedOver = true;
                return new Result(rstore, jobName, valuesSegment, valueLayout, header.vertexCount(), drive.supersteps, drive.stoppedByMaster,
                        partitioning, messaging, drive.setupSeconds, (System.nanoTime() - drive.computeStart) / 1e9);
            }
        } finally {
            if (!handedOver) {
                deleteJob(rstore, jobName);
            }
        }
    }

    /** What the program declares must fit together; said before any worker starts. Returns its declaration. */
    private static Declaration check(VertexProgram program) {
        Declaration declared = Objects.requireNonNull(program.declaration(), "the program's declaration()").check();
        if (program.globals() < 0) {
            throw new IllegalArgumentException("a program's globals() must be >= 0, was " + program.globals());
        }
        return declared;
    }

    /** A start vertex the graph does not have would leave the job without one: refused before any worker starts. */
    private static void checkStarts(VertexProgram program, long vertexCount) {
        int[] starts = program.startVertices();
        if (starts != null) {
            for (int v : starts) {
                if (v < 0 || v >= vertexCount) {
                    throw new IllegalArgumentException("startVertices() holds " + v + ", which the graph does not have: internal ids run from 0 to "
                            + (vertexCount - 1));
                }
            }
        }
    }

    private static void deleteJob(RStore rstore, String jobName) {
        try {
            rstore.deleteNamespace(jobName);
        } catch (RStoreException leftover) {
            // a worker that is still stuck keeps its mappings; its client's close drops them
        }
    }

    /** The superstep loop on the coordinator. */
    private static final class Drive implements VertexProgram.MasterContext {
        private final BarrierCoordinator coordinator;
        private final BarrierLayout layout;
        private final GraphHeader graph;
        private final List<Aggregator> aggregators;
        private final VertexProgram program;
        private final Options options;
        private final Consumer<Superstep> progress;
        private final Messaging messaging; // as resolved: recorded in checkpoints, so a resumed job travels the same way
        private final long setupStart;
        private final LongConsumer watch; // between barrier polls, with the superstep (-1: setup): throws to fail the job
        final List<Superstep> supersteps = new ArrayList<>();
        boolean stoppedByMaster;
        double setupSeconds;
        long computeStart;
        private long superstep;
        private long active;
        private long messages;
        private final long[] global;  // aggregators' values, raw bits
        private final long[] globals; // the master's global values, raw bits
        private final int checkpointEvery;
        private final Path checkpoints;
        private final long first; // 0, or the checkpoint this run restarted from

        Drive(Job job, BarrierCoordinator coordinator, BarrierLayout layout, GraphHeader graph, long setupStart, LongConsumer watch,
              Checkpoints.CoordinatorState restored, Messaging messaging) {
            this.coordinator = coordinator;
            this.messaging = messaging;
            this.watch = watch;
            this.layout = layout;
            this.graph = graph;
            this.aggregators = job.aggregators();
            this.program = job.program();
            this.options = job.options();
            this.progress = job.options().progress();
            this.setupStart = setupStart;
            this.global = new long[aggregators.size()];
            this.globals = new long[job.globals()];
            for (int a = 0; a < global.length; a++) {
                global[a] = aggregators.get(a).identityBits();
            }
            this.checkpointEvery = job.checkpointEvery();
            this.checkpoints = job.checkpoints();
            this.first = restored == null ? 0 : restored.superstep();
            if (restored != null) {
                active = restored.active();
                messages = restored.messages();
                System.arraycopy(restored.aggregates(), 0, global, 0, global.length);
                System.arraycopy(restored.globals(), 0, this.globals, 0, this.globals.length);
                supersteps.addAll(restored.history());
            }
        }

        void run() {
            coordinator.start(0); // setup round: workers size and publish their outboxes
            coordinator.awaitRound(0, options.superstepTimeoutMs(), () -> watch.accept(-1));
            coordinator.start(1); // joining round: workers map what the others published
            coordinator.awaitRound(1, options.superstepTimeoutMs(), () -> watch.accept(-1));
            setupSeconds = (System.nanoTime() - setupStart) / 1e9;
            computeStart = System.nanoTime();
            int count = aggregators.size();
            superstep = first;
            Superstep unreported = null; // the last superstep, told to progress once the next one runs: off the barrier's path
            for (; ; superstep++) {
                MemorySegment area = coordinator.area();
                BarrierAreas.putLong(area, BarrierAreas.SUPERSTEP, superstep);
                BarrierAreas.putLong(area, BarrierAreas.TOTAL_ACTIVE, active);
                BarrierAreas.putLong(area, BarrierAreas.TOTAL_MESSAGES, messages);
                for (int a = 0; a < count; a++) {
                    BarrierAreas.putAggregate(area, a, global[a]);
                }
                for (int g = 0; g < globals.length; g++) {
                    BarrierAreas.putGlobal(area, count, g, globals[g]);
                }
                long start = System.nanoTime();
                long round = superstep - first + 2; // rounds stay consecutive after a restart
                coordinator.start(round);
                report(unreported); // formatting and printing a line took 0.4-1.6 ms between two supersteps at LiveJournal scale
                unreported = null;
                long current = superstep;
                coordinator.awaitRound(round, options.superstepTimeoutMs(), () -> watch.accept(current));
                active = 0;
                messages = 0;
                long bytes = 0;
                long computed = 0;
                int dense = 0;
                for (int a = 0; a < count; a++) {
                    global[a] = aggregators.get(a).identityBits();
                }
                for (int w = 0; w < layout.workers(); w++) {
                    MemorySegment worker = coordinator.workerArea(w);
                    active += BarrierAreas.getLong(worker, BarrierAreas.ACTIVE);
                    messages += BarrierAreas.getLong(worker, BarrierAreas.MESSAGES);
                    bytes += BarrierAreas.getLong(worker, BarrierAreas.BYTES);
                    computed += BarrierAreas.getLong(worker, BarrierAreas.COMPUTED);
                    dense += (int) BarrierAreas.getLong(worker, BarrierAreas.DENSE);
                    for (int a = 0; a < count; a++) {
                        global[a] = aggregators.get(a).combineBits(global[a], BarrierAreas.aggregate(worker, a));
                    }
                }
                double[] aggregates = new double[count];
                for (int a = 0; a < count; a++) {
                    aggregates[a] = aggregators.get(a).isLong() ? global[a] : Double.longBitsToDouble(global[a]);
                }
                Superstep done = new Superstep(superstep, (System.nanoTime() - start) / 1e9, computed, active, messages, bytes, dense, aggregates);
                supersteps.add(done);
                try {
                    stoppedByMaster = program.masterCompute(this);
                } catch (RuntimeException e) {
                    report(done);
                    throw e;
                }
                if (stoppedByMaster || (active == 0 && messages == 0) || superstep + 1 >= options.maxSupersteps()) {
                    coordinator.halt();
                    report(done);
                    return;
                }
                unreported = done;
                if (checkpointEvery > 0 && (superstep + 1) % checkpointEvery == 0) { // every worker wrote its part before it finished
                    Checkpoints.complete(checkpoints, new Checkpoints.CoordinatorState(superstep + 1, active, messages, global.clone(), globals.clone(),
                            List.copyOf(supersteps), messaging), layout.workers());
                }
            }
        }

        private void report(Superstep done) {
            if (progress != null && done != null) {
                progress.accept(done);
            }
        }

        @Override
        public long superstep() {
            return superstep;
        }

        @Override
        public long vertexCount() {
            return graph.vertexCount();
        }

        @Override
        public long edgeCount() {
            return graph.edgeCount();
        }

        private Aggregator kind(int i, boolean isLong) {
            Aggregator a = aggregators.get(i);
            if (a.isLong() != isLong) {
                throw new IllegalArgumentException("aggregator " + i + " holds " + (a.isLong() ? "longs" : "doubles"));
            }
            return a;
        }

        @Override
        public double aggregatedDouble(int index) {
            kind(index, false);
            return Double.longBitsToDouble(global[index]);
        }

        @Override
        public long aggregatedLong(int index) {
            kind(index, true);
            return global[index];
        }

        @Override
        public void setGlobal(int index, double value) {
            globals[index] = Double.doubleToRawLongBits(value);
        }

        @Override
        public void setGlobal(int index, long value) {
            globals[index] = value;
        }

        @Override
        public double globalDouble(int index) {
            return Double.longBitsToDouble(globals[index]);
        }

        @Override
        public long globalLong(int index) {
            return globals[index];
        }

        @Override
        public long activeVertices() {
            return active;
        }

        @Override
        public long messagesSent() {
            return messages;
        }
    }

    /**
     * Between barrier polls: a worker that has ended before the job did (its process exited,
     * its thread died) fails the job now rather than at the superstep timeout.
     */
    private static void failFast(List<Future<Void>> workers) {
        for (int i = 0; i < workers.size(); i++) {
            Future<Void> w = workers.get(i);
            if (!w.isDone()) {
                continue;
            }
            try {
                w.get();
            } catch (ExecutionException e) {
                throw new PregelException("worker " + i + " failed: " + e.getCause().getMessage(), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PregelException("interrupted while watching worker " + i, e);
            } catch (CancellationException e) {
                throw new PregelException("worker " + i + " was cancelled before the job ended", e);
            }
            throw new PregelException("worker " + i + " stopped before the job ended", null);
        }
    }

    /** Waits for every worker to stop after HALT (so none still holds job mappings), then reports the first failure. */
    private static void awaitWorkers(List<Future<Void>> workers, Options options) {
        long deadline = System.nanoTime() + options.superstepTimeoutMs() * 1_000_000L;
        PregelException first = null;
        for (int i = 0; i < workers.size(); i++) {
            try {
                workers.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                first = first != null ? first : new PregelException("worker " + i + " failed: " + e.getCause().getMessage(), e.getCause());
            } catch (TimeoutException e) {
                first = first != null ? first
                        : new PregelException("worker " + i + " did not stop within " + options.superstepTimeoutMs() + " ms after HALT", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PregelException("interrupted while waiting for worker " + i, e);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * A worker's own failure explains a barrier error or timeout better than the barrier
     * can; workers that merely saw the abort are passed over. Every worker is waited for
     * (within one bound), not just the first that explains: until a worker has stopped it
     * holds mappings in the job namespace, and the namespace could not be deleted.
     */
    private static RuntimeException explain(RuntimeException failure, List<Future<Void>> workers, Options options) {
        long deadline = System.nanoTime() + Math.min(options.superstepTimeoutMs(), 10_000) * 1_000_000L;
        RuntimeException explained = null;
        for (int i = 0; i < workers.size(); i++) {
            try {
                workers.get(i).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (explained == null && !PartitionWorker.isAbort(e.getCause())) {
                    explained = new PregelException("worker " + i + " failed: " + e.getCause().getMessage(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (TimeoutException | CancellationException e) {
                // no more to learn from this worker
            }
        }
        if (failure instanceof PregelException named) {
            return named; // failFast already named the worker that ended first; the others merely saw the abort
        }
        return explained != null ? explained : new PregelException("the job failed: " + failure.getMessage(), failure);
    }
}

package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
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

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a vertex program over a graph in RStore: the coordinator side of the BSP engine.
 * It partitions the graph, lays out the job in its own namespace (directory, values,
 * barrier region; the workers add the mailbox grid), starts one worker per partition —
 * threads with their own RStore clients, sharing nothing but RStore — and drives the
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
     */
    public record Options(int workers, double vertexWeight, double edgeWeight, long maxSupersteps, long superstepTimeoutMs,
                          Messaging messaging) {
        public Options {
            java.util.Objects.requireNonNull(messaging, "messaging");
            if (workers < 1 || workers > 1024) {
                throw new IllegalArgumentException("--workers must be 1..1024, was " + workers);
            }
            if (maxSupersteps < 1) {
                throw new IllegalArgumentException("the superstep bound must be >= 1, was " + maxSupersteps);
            }
            if (superstepTimeoutMs < 1) {
                throw new IllegalArgumentException("the superstep timeout must be >= 1 ms, was " + superstepTimeoutMs);
            }
        }

        public static Options defaults(int workers) {
            return new Options(workers, 1, 1, 10_000, 600_000, Messaging.AUTO);
        }

        public Options withMaxSupersteps(long n) {
            return new Options(workers, vertexWeight, edgeWeight, n, superstepTimeoutMs, messaging);
        }

        public Options withMessaging(Messaging m) {
            return new Options(workers, vertexWeight, edgeWeight, maxSupersteps, superstepTimeoutMs, m);
        }
    }

    /** One superstep as the coordinator saw it. */
    public record Superstep(long index, double seconds, long activeVertices, long messages, long bytesMoved, double[] aggregates) {
    }

    /** The outcome: every vertex's value and the supersteps run. */
    public record Result(double[] values, List<Superstep> supersteps, boolean stoppedByMaster, Partitioning partitioning,
                         Messaging messaging, double setupSeconds, double computeSeconds) {
    }

    private PregelJob() {
    }

    /** Runs the job with its workers as threads of this process. */
    public static Result run(RStore rstore, String graph, VertexProgram program, Options options, Consumer<Superstep> progress) {
        try (Workers threads = new ThreadWorkers(program, rstore.settings(), options.workers(), options.superstepTimeoutMs())) {
            return run(rstore, graph, program, options, progress, threads);
        }
    }

    /**
     * What a worker in another process runs (carafe worker): joins job {@code jobNamespace}
     * as worker {@code index}, building the program from the spec in the job's directory.
     */
    public static void work(String clusterUri, RStoreSettings settings, String jobNamespace, int index,
                            Function<String, VertexProgram> programs, long timeoutMs) {
        new PartitionWorker(clusterUri, settings, jobNamespace, index, programs, timeoutMs).call();
    }

    /** Runs the job with workers started by {@code workers} (threads, or processes that join through RStore). */
    public static Result run(RStore rstore, String graph, VertexProgram program, Options options, Consumer<Superstep> progress,
                             Workers workerStarter) {
        long setupStart = System.nanoTime();
        Messaging messaging = options.messaging().resolve(program);
        GraphHeader header = CarafeGraph.header(rstore, graph);
        Partitioning partitioning = Partitioning.compute(rstore, graph, options.workers(), options.vertexWeight(), options.edgeWeight());
        int partitions = partitioning.partitions();
        int aggregators = program.aggregators();
        String jobName = "carafe/job/" + graph + "-" + ProcessHandle.current().pid() + "-" + JOBS.incrementAndGet();
        Namespace job = rstore.createNamespace(jobName);
        BarrierLayout layout = new BarrierLayout(partitions, BarrierAreas.bytes(aggregators));
        List<Future<Void>> workers = new ArrayList<>();
        try {
            RAddress directorySegment = job.bootstrap(JobLayout.bytes(partitions));
            RAddress valuesSegment = job.alloc(Math.max(8 * header.vertexCount(), 8), AllocFlags.GROW | AllocFlags.ZERO);
            RAddress barrierSegment = job.alloc(layout.totalBytes(), AllocFlags.GROW | AllocFlags.ZERO);
            try (Mapping directory = directorySegment.map(MapFlags.NONE)) {
                JobLayout.writeHeader(directory.segment(), partitions, aggregators, header.vertexCount(), valuesSegment.address(),
                        barrierSegment.address(), program.combiner(), messaging, graph, program.spec(), partitioning.starts());
                directory.write();
            }
            try (BarrierCoordinator coordinator = new BarrierCoordinator(barrierSegment, layout)) {
                for (int i = 0; i < partitions; i++) {
                    workers.add(workerStarter.start(rstore.uri(), jobName, i));
                }
                Drive drive = new Drive(coordinator, layout, header.vertexCount(), aggregators, program, options, progress, setupStart);
                try {
                    drive.run();
                } catch (RuntimeException failure) {
                    coordinator.abort();
                    throw explain(failure, workers, options);
                }
                awaitWorkers(workers, options);
                double[] values = readValues(valuesSegment, header.vertexCount());
                return new Result(values, drive.supersteps, drive.stoppedByMaster, partitioning, messaging, drive.setupSeconds,
                        (System.nanoTime() - drive.computeStart) / 1e9);
            }
        } finally {
            try {
                rstore.deleteNamespace(jobName);
            } catch (RStoreException leftover) {
                // a worker that is still stuck keeps its mappings; its client's close drops them
            }
        }
    }

    /** The superstep loop on the coordinator. */
    private static final class Drive implements VertexProgram.MasterContext {
        private final BarrierCoordinator coordinator;
        private final BarrierLayout layout;
        private final long vertexCount;
        private final int aggregators;
        private final VertexProgram program;
        private final Options options;
        private final Consumer<Superstep> progress;
        private final long setupStart;
        final List<Superstep> supersteps = new ArrayList<>();
        boolean stoppedByMaster;
        double setupSeconds;
        long computeStart;
        private long superstep;
        private long active;
        private long messages;
        private final double[] global;

        Drive(BarrierCoordinator coordinator, BarrierLayout layout, long vertexCount, int aggregators, VertexProgram program, Options options,
              Consumer<Superstep> progress, long setupStart) {
            this.coordinator = coordinator;
            this.layout = layout;
            this.vertexCount = vertexCount;
            this.aggregators = aggregators;
            this.program = program;
            this.options = options;
            this.progress = progress;
            this.setupStart = setupStart;
            this.global = new double[aggregators];
        }

        void run() {
            coordinator.start(0); // setup round: workers size and publish their outboxes
            coordinator.awaitRound(0, options.superstepTimeoutMs());
            setupSeconds = (System.nanoTime() - setupStart) / 1e9;
            computeStart = System.nanoTime();
            for (superstep = 0; ; superstep++) {
                MemorySegment area = coordinator.area();
                BarrierAreas.putLong(area, BarrierAreas.SUPERSTEP, superstep);
                BarrierAreas.putLong(area, BarrierAreas.TOTAL_ACTIVE, active);
                BarrierAreas.putLong(area, BarrierAreas.TOTAL_MESSAGES, messages);
                for (int a = 0; a < aggregators; a++) {
                    BarrierAreas.putAggregate(area, a, global[a]);
                }
                long start = System.nanoTime();
                coordinator.start(superstep + 1);
                coordinator.awaitRound(superstep + 1, options.superstepTimeoutMs());
                active = 0;
                messages = 0;
                long bytes = 0;
                java.util.Arrays.fill(global, 0);
                for (int w = 0; w < layout.workers(); w++) {
                    MemorySegment worker = coordinator.workerArea(w);
                    active += BarrierAreas.getLong(worker, BarrierAreas.ACTIVE);
                    messages += BarrierAreas.getLong(worker, BarrierAreas.MESSAGES);
                    bytes += BarrierAreas.getLong(worker, BarrierAreas.BYTES);
                    for (int a = 0; a < aggregators; a++) {
                        global[a] += BarrierAreas.aggregate(worker, a);
                    }
                }
                Superstep done = new Superstep(superstep, (System.nanoTime() - start) / 1e9, active, messages, bytes, global.clone());
                supersteps.add(done);
                if (progress != null) {
                    progress.accept(done);
                }
                stoppedByMaster = program.masterCompute(this);
                if (stoppedByMaster || (active == 0 && messages == 0) || superstep + 1 >= options.maxSupersteps()) {
                    coordinator.halt();
                    return;
                }
            }
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
        public double aggregated(int index) {
            return global[index];
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
            } catch (TimeoutException | java.util.concurrent.CancellationException e) {
                // no more to learn from this worker
            }
        }
        return explained != null ? explained : new PregelException("the job failed: " + failure.getMessage(), failure);
    }

    private static double[] readValues(RAddress segment, long vertexCount) {
        double[] values = new double[(int) vertexCount];
        if (vertexCount == 0) {
            return values;
        }
        try (Mapping m = segment.map(0, 8 * vertexCount, MapFlags.READ_ONLY | MapFlags.PREFETCH)) {
            MemorySegment.copy(m.segment(), ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, values, 0, (int) vertexCount);
        }
        return values;
    }
}

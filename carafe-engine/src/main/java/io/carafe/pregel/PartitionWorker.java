package io.carafe.pregel;

import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.barrier.BarrierLayout;
import io.rstore.barrier.BarrierWorker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One partition worker. It joins a job knowing only the cluster and the job's namespace
 * (which a worker started before its job learns once it has connected): the directory
 * there names the graph, the partitioning, the values, the barrier and the mailbox grid.
 * It builds the program from the directory's spec, opens its view of the
 * graph ({@link WorkerGraph}) and runs the {@link SuperstepLoop}, which computes each
 * vertex through a {@link VertexContext} and moves messages through the job's
 * {@link MessageChannel}.
 */
final class PartitionWorker implements Callable<Void> {
    private final String clusterUri;
    private final RStoreSettings settings;
    private final Supplier<String> jobNamespace; // asked once connected: a worker started before its job waits for it there
    private final int index;
    private final Function<String, VertexProgram> programs;
    private final long timeoutMs;
    private final GatheredArrays gatheredArrays; // shared with the job's other workers in this process

    /**
     * {@code programs} builds the vertex program from the spec in the job's directory;
     * {@code gatheredArrays} holds the gather's arrays, one for the job's workers in this process.
     */
    PartitionWorker(String clusterUri, RStoreSettings settings, Supplier<String> jobNamespace, int index, Function<String, VertexProgram> programs,
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
            String jobNamespace = this.jobNamespace.get();
            if (jobNamespace == null) {
                return null; // no job came for a worker started ahead of it
            }
            Namespace job = rstore.joinNamespace(jobNamespace);
            try (Mapping directory = job.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.PREFETCH)) {
                MemorySegment dir = directory.segment();
                if (!JobLayout.valid(dir)) {
                    throw new IllegalStateException(jobNamespace + " holds no Pregel job directory");
                }
                JobLayout.Header header = JobLayout.readHeader(dir);
                VertexProgram program = programs.apply(header.program());
                Declaration declared = program.declaration();
                checkSameProgram(program, declared, header);
                BarrierLayout layout = new BarrierLayout(header.partitions(), BarrierAreas.bytes(header.aggregators(), header.globals()));
                try (BarrierWorker barrier = new BarrierWorker(job.raddress(header.barrierAt()), layout, index);
                     Heartbeats.Beat heartbeat = Heartbeats.beat(barrier);
                     Arena arena = Arena.ofShared()) { // shared, not confined: its segments are checked for liveness only, not for the owning thread, on every access
                    try {
                        if (!barrier.awaitStart(0, timeoutMs)) {
                            return null;
                        }
                        Partitioning partitioning = new Partitioning(header.starts(), 0, 0);
                        int from = partitioning.start(index);
                        WorkerGraph graph = new WorkerGraph(rstore, header, from, partitioning.end(index) - from, declared, gatheredArrays);
                        WorkerJob worker = new WorkerJob(job, directory, header, partitioning, index, program, declared, graph, arena,
                                gatheredArrays);
                        new SuperstepLoop(rstore, worker, barrier, timeoutMs).run();
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
    private static void checkSameProgram(VertexProgram program, Declaration declared, JobLayout.Header header) {
        if (declared.value().bytes() != header.valueBytes() || declared.messageBytes() != header.messageBytes()
                || program.aggregators().size() != header.aggregators() || program.globals() != header.globals()) {
            throw new IllegalStateException("the program built from spec '" + header.program() + "' has other records or aggregators than"
                    + " the job's (" + declared.value().bytes() + "/" + declared.messageBytes() + " value/message bytes, expected "
                    + header.valueBytes() + "/" + header.messageBytes() + ")");
        }
    }

    static boolean isAbort(Throwable e) {
        return e instanceof RStoreException rse && rse.code() == ErrorCode.ABORTED;
    }
}

package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.SequentialEdgeIterator;

import java.util.ArrayList;
import java.util.List;

/**
 * What a job will hold in memory at its peak, predicted before anything is loaded, from the
 * graph's header, the program's declarations and the job's options: like Neo4j GDS's
 * estimate mode. Each part is a sum of the engine's own arrays (docs/architecture.md): the
 * graph's sections as the job reads them, in RStore and copied into the workers; the values;
 * the mailboxes or the gather's arrays; the neighbourhood cache; a program's own
 * ({@link VertexProgram#workerBytes} in each worker, {@link VertexProgram#processBytes} once a
 * process); the JVM. Messages without a combiner are counted as
 * one per edge each superstep, what most such programs send at their busiest.
 *
 * <p>The parts are grouped by the process that holds them: with workers as threads, one
 * process holds everything (and, embedded, the memory servers too); with worker processes,
 * the command's process holds the cluster's share and each worker its own, plus the part of
 * the cluster's memory it touches through shared memory (counted in both processes'
 * resident sets, as Linux counts shared pages); with a cluster of daemons, the memory
 * servers' share is theirs.
 */
public final class MemoryEstimate {
    /**
     * A JVM running Carafe before it holds a graph: about what small graphs peak at, now that
     * memory servers hold only the allocated part of a chunk (the measured peaks:
     * docs/measure/notebook.md and MemoryEstimateTest; 117-131 MB on wiki-Vote in 2026-11).
     */
    static final long JVM_BYTES = 120L << 20;
    /** Heap arrays are held with the collector's headroom. */
    static final double HEAP_HEADROOM = 1.25;

    /** One part of the estimate, in bytes. */
    public record Part(String what, long bytes) {
    }

    /** The parts one process holds (or the memory servers, for a cluster of daemons). */
    public record Process(String name, List<Part> parts) {
        public long bytes() {
            return parts.stream().mapToLong(Part::bytes).sum();
        }
    }

    private final List<Process> processes;

    private MemoryEstimate(List<Process> processes) {
        this.processes = List.copyOf(processes);
    }

    public List<Process> processes() {
        return processes;
    }

    /** The estimate for the processes on this host: the largest one alone, or all of them as run together. */
    public long peakBytes() {
        return processes.stream().filter(p -> !p.name().equals(MEMORY_SERVERS)).mapToLong(Process::bytes).sum();
    }

    static final String MEMORY_SERVERS = "the cluster's memory servers";

    /**
     * The estimate of running {@code program} on {@code graph} with {@code options}:
     * {@code workerProcesses} when each worker is a JVM of its own, {@code embedded} when the
     * memory servers run in this process (else in daemons of a cluster).
     */
    public static MemoryEstimate of(GraphHeader graph, VertexProgram program, PregelJob.Options options, boolean workerProcesses, boolean embedded) {
        Declaration declared = program.declaration().check(); // what cannot run is refused here as the job would refuse it
        Messaging messaging = options.messaging().resolve(declared);
        long v = graph.vertexCount();
        long e = graph.edgeCount();
        int p = options.workers();
        boolean directed = graph.directed();
        boolean neighbourhoods = declared.readsNeighbourhoods();
        boolean gathering = messaging == Messaging.GATHER || messaging == Messaging.HYBRID;
        boolean silent = declared.sending() == Declaration.Sending.NOTHING;
        boolean plusWeight = declared.addsWeight();
        boolean toAll = declared.sending() == Declaration.Sending.ALONG_ALL_EDGES;
        // a partition's out-edges scanned by its worker, as pushing along them reads them; a hybrid job's sparse supersteps
        // read their senders' lists a window at a time, and a program that reads neighbourhoods reads its own lists
        // through the cache like any other's (Triangles sends to vertex ids)
        boolean scans = messaging == Messaging.PUSH && !neighbourhoods;
        boolean inEdges = directed && declared.readsInEdges();
        long vb = declared.value().bytes();
        long mb = declared.messageBytes();
        long stride = MailboxLayout.messageBytes((int) mb);

        List<Part> store = new ArrayList<>();   // in RStore: the memory servers'
        List<Part> workers = new ArrayList<>(); // in the workers, all of them together
        List<Part> perProcess = new ArrayList<>(); // once in each process that runs workers

        long graphRead = graph.verticesBytes()
                + (scans || neighbourhoods || gathering && !directed ? graph.edgesBytes() + (plusWeight ? graph.weightsBytes() : 0) : 0)
                + (inEdges || directed && (gathering || neighbourhoods)
                        ? graph.bytes(GraphHeader.Section.IN_OFFSETS) + graph.bytes(GraphHeader.Section.IN_SOURCES) : 0)
                + (plusWeight && gathering ? graph.bytes(GraphHeader.Section.IN_WEIGHTS) : 0);
        store.add(new Part("graph: the sections the job reads", graphRead));
        if (scans && !embedded) {
            // a window of records and one of edges (and of weights) at a time, each partition; served from this
            // process, windows are the chunks' own bytes (MapFlags.DIRECT) and hold nothing
            workers.add(new Part("graph: each partition's scan, a window at a time",
                    p * SequentialEdgeIterator.WINDOW_BYTES * (graph.weighted() ? 3 : 2)));
        }
        if (inEdges) {
            workers.add(new Part("graph: each partition's in-edges", heap(4 * v + 4 * e + (graph.weighted() ? graph.weightBytes() * e : 0))));
        }
        if (neighbourhoods) {
            long edgeArrays = graph.edgesBytes() + graph.bytes(GraphHeader.Section.IN_SOURCES); // what a cache could ever hold
            if (!embedded) { // served from this process, the lists are the chunks' own bytes (MapFlags.DIRECT): no cache
                workers.add(new Part("neighbourhood cache", p * Math.min(options.neighbourhoodCacheBytes(), edgeArrays)));
            }
            perProcess.add(new Part("neighbourhoods: every vertex's edge offsets", 16 * v));
        }

        long snapshots = declared.readsOtherValues() ? 3 : 1;
        store.add(new Part("values" + (snapshots > 1 ? " and their two snapshots" : ""), vb * v * snapshots));
        workers.add(new Part("values: each partition's, mapped", vb * v));
        if (snapshots > 1) {
            perProcess.add(new Part("values: the snapshot every vertex reads", vb * v));
        }

        if (gathering) {
            long listed = toAll && directed ? 2 * e : e;
            long weights = plusWeight && graph.weighted() ? graph.weightBytes() * e : 0; // unweighted: every edge adds 1, nothing stored
            workers.add(new Part("gather: in-edges as slots" + (plusWeight ? " with weights" : ""), heap(4 * listed + weights)));
            workers.add(new Part("gather: slots and degrees", heap((long) p * 4 * v * (toAll && directed ? 2 : 1) + 24 * v)));
            workers.add(new Part("gather: every vertex's degree read a piece at a time", p * Math.min(CarafeGraph.PIECE_BYTES, graph.verticesBytes())));
            store.add(new Part("gather: broadcast segments", 2 * 8 * v));
            workers.add(new Part("gather: the other partitions' broadcasts, mapped", (long) (p - 1) * 2 * 8 * v));
            // a program that sends one value each superstep gathers sent bits alone
            perProcess.add(new Part("gather: the gathered values", heap((declared.sendsSameValue() ? 0 : 8 * v) + v / 8)));
        }
        if (!silent && messaging != Messaging.GATHER) {
            long localPages = (long) p * p * 2 * MailboxLayout.PAGE_BYTES; // an outgoing and an incoming page per partition pair
            long said = program.busiestSuperstepMessages(v, e, p); // -1: the program does not say
            if (declared.combiner() != null) {
                // at most one message per target from each worker, and a hybrid job pushes only while its senders reach 1/DENSE_FRACTION of the edges
                long messages = Math.min((long) p * v, messaging == Messaging.HYBRID ? e / Messaging.DENSE_FRACTION : e);
                store.add(new Part("mailboxes: pages of both parities", 2 * busiest(said, messages) * stride));
                workers.add(new Part("mailboxes: combining slots and buckets, local pages",
                        (long) p * (v * mb + ((v >>> 18) + 1) * (1 << 14) * (mb + 4)) + v * mb + localPages));
            } else {
                store.add(new Part("mailboxes: pages of both parities, a message per edge", 2 * busiest(said, e) * stride));
                workers.add(new Part("mailboxes: the messages grouped by target, local pages", e * mb + localPages));
            }
        }
        long own = program.workerBytes(v, e, p);
        if (own > 0) {
            workers.add(new Part("the program's own arrays", heap(p * own)));
        }
        long shared = program.processBytes(v, e);
        if (shared > 0) {
            perProcess.add(new Part("the program's arrays its workers share", heap(shared)));
        }

        List<Process> processes = new ArrayList<>();
        if (!workerProcesses) {
            List<Part> all = new ArrayList<>();
            all.add(new Part("JVM", JVM_BYTES));
            if (embedded) {
                all.addAll(store);
            }
            all.addAll(workers);
            all.addAll(perProcess);
            processes.add(new Process("this process (" + p + " worker threads" + (embedded ? ", the memory servers" : "") + ")", all));
        } else {
            List<Part> command = new ArrayList<>();
            command.add(new Part("JVM", JVM_BYTES));
            if (embedded) {
                command.addAll(store);
            }
            processes.add(new Process("this process (the coordinator" + (embedded ? ", the memory servers" : "") + ")", command));
            long storeBytes = store.stream().mapToLong(Part::bytes).sum();
            for (int i = 0; i < p; i++) {
                List<Part> worker = new ArrayList<>();
                worker.add(new Part("JVM", JVM_BYTES));
                if (embedded) { // on this host workers reach the memory servers' chunks through shared memory: what they touch counts in them too
                    worker.add(new Part("RStore's memory it reads and writes through shared memory (its share)", storeBytes / p));
                }
                for (Part part : workers) {
                    worker.add(new Part(part.what(), part.bytes() / p));
                }
                worker.addAll(perProcess);
                processes.add(new Process("worker process " + i, worker));
            }
        }
        if (!embedded) {
            processes.add(new Process(MEMORY_SERVERS, store));
        }
        return new MemoryEstimate(processes);
    }

    /** The messages of the busiest superstep: what the program {@code said}, within {@code bound}; the bound where it said nothing (-1). */
    private static long busiest(long said, long bound) {
        return said < 0 ? bound : Math.min(said, bound);
    }

    /** Heap arrays of {@code bytes}, as resident with the collector's headroom. */
    private static long heap(long bytes) {
        return (long) (bytes * HEAP_HEADROOM);
    }

    /** The estimate as lines for people: each process, its parts and its total, and the total on this host. */
    public String describe() {
        StringBuilder out = new StringBuilder();
        for (Process process : processes) {
            out.append(String.format("%s: %s%n", process.name(), MemoryBound.gigabytes(process.bytes())));
            for (Part part : process.parts()) {
                if (part.bytes() > 0) {
                    out.append(String.format("  %-62s %12s%n", part.what(), MemoryBound.gigabytes(part.bytes())));
                }
            }
        }
        out.append(String.format("peak on this host, all its processes together: %s%n", MemoryBound.gigabytes(peakBytes())));
        return out.toString();
    }
}

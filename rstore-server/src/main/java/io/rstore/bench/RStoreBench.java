package io.rstore.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.AllocFlags;
import io.rstore.Completion;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.barrier.BarrierCoordinator;
import io.rstore.barrier.BarrierLayout;
import io.rstore.barrier.BarrierWorker;
import io.rstore.config.Units;
import io.rstore.memory.NativeMemory;
import io.rstore.protocol.ServerInfo;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The RStore benchmark: control-path cost (reserve, alloc, map; cold and cached),
 * data-path latency of small reads and writes, and bandwidth of large ones, each
 * data-path figure beside the same bytes moved by a plain {@link MemorySegment#copy}
 * in the same run.
 */
public final class RStoreBench {
    /** What to measure. */
    public record Plan(List<Long> controlSizes, int latencyOps, int latencyRounds, int latencyBytes, List<Long> bandwidthSizes,
                       List<Integer> inFlight, long bytesPerBandwidthPoint) {
    }

    private final RStore rstore;
    private final Plan plan;
    private final PrintStream progress;
    private final ObjectNode result = new ObjectMapper().createObjectNode();

    public RStoreBench(RStore rstore, Plan plan, PrintStream progress) {
        this.rstore = rstore;
        this.plan = plan;
        this.progress = progress;
    }

    public ObjectNode run() {
        RStoreSettings s = rstore.settings();
        ObjectNode setup = result.putObject("setup");
        setup.put("transport", rstore.transportName());
        setup.put("memoryServers", rstore.servers().size());
        setup.put("chunkSizeBytes", s.chunkSizeBytes());
        setup.put("metricsEnabled", s.metricsEnabled());
        setup.put("hugePages", NativeMemory.usesHugePages());
        setup.put("java", Runtime.version().toString());
        setup.put("cores", Runtime.getRuntime().availableProcessors());
        setup.put("timerFloorNanos", timerFloor());
        setup.put("plainCopySource", sharedMemory() ? "a mapped file in /dev/shm" : "Arena.allocate");
        controlPath(result.putArray("controlPath"));
        latency(result.putArray("latency"));
        barrier(result.putObject("barrier"));
        bandwidth(result.putArray("bandwidth"));
        if (rstore.servers().stream().anyMatch(this::overSockets)) {
            socketBaselines(result.putObject("socketBaseline"));
        }
        return result;
    }

    /** p50 of two back-to-back clock reads: included in every latency sample below. */
    private static double timerFloor() {
        long[] samples = new long[100_000];
        for (int i = 0; i < samples.length; i++) {
            long start = System.nanoTime();
            samples[i] = System.nanoTime() - start;
        }
        return Percentiles.of(samples).p50();
    }

    /**
     * Runs one control-path cycle on a throwaway cluster so that the "cold" figures measure
     * cold memory (nothing in the master's pool or the client's cache), not a cold JIT.
     */
    public static void warmUp(RStoreSettings settings) {
        try (RStore scratch = RStore.embedded(settings.withClusterName("bench-warm-up"))) {
            for (int i = 0; i < 200; i++) {
                Namespace ns = scratch.createNamespace("warm-up-" + i);
                RAddress seg = ns.alloc(4096, AllocFlags.GROW);
                seg.map(MapFlags.PREFETCH).unmap();
                ns.free(seg);
                ns.release(1);
                scratch.deleteNamespace(ns.name());
            }
        }
    }

    // ---- control path ----

    /**
     * Per size: a fresh client (so its local memory is empty) in a new namespace reserves,
     * allocates and maps cold; then releases and does it again, now from the master's
     * free pool and the client's cache. Namespaces stay until every size is done, so no
     * size's "cold" reservation is served from an earlier size's chunks.
     */
    private void controlPath(ArrayNode out) {
        List<String> names = new ArrayList<>();
        try {
            for (long size : plan.controlSizes()) {
                progress.printf("control path: %s%n", Units.bytes(size));
                String name = "bench-control-" + size;
                names.add(name);
                try (RStore client = RStore.connect(rstore.uri(), rstore.settings())) {
                    Namespace ns = client.createNamespace(name);
                    long t0 = System.nanoTime();
                    ns.reserve(size);
                    long t1 = System.nanoTime();
                    RAddress seg = ns.alloc(size);
                    long t2 = System.nanoTime();
                    Mapping mapping = seg.map(MapFlags.NONE);
                    long t3 = System.nanoTime();
                    mapping.unmap();
                    long t4 = System.nanoTime();
                    ns.free(seg);
                    ns.release(size);
                    long t5 = System.nanoTime();
                    ns.reserve(size);
                    long t6 = System.nanoTime();
                    seg = ns.alloc(size);
                    long t7 = System.nanoTime();
                    mapping = seg.map(MapFlags.NONE);
                    long t8 = System.nanoTime();
                    mapping.unmap();
                    ObjectNode row = out.addObject();
                    row.put("bytes", size);
                    row.put("reserveColdMicros", micros(t1 - t0));
                    row.put("reserveCachedMicros", micros(t6 - t5));
                    row.put("allocMicros", micros(t2 - t1));
                    row.put("allocAgainMicros", micros(t7 - t6));
                    row.put("mapColdMicros", micros(t3 - t2));
                    row.put("mapCachedMicros", micros(t8 - t7));
                    row.put("unmapMicros", micros(t4 - t3));
                }
            }
        } finally {
            names.forEach(rstore::deleteNamespace);
        }
    }

    // ---- data path latency ----

    /**
     * Operations of each kind before the latency rounds, at least: the JIT's C2 compiles the
     * path after some thousands of them.
     */
    private static final int WARM_UP_OPS = 20_000;
    /** The longest a warm-up goes on waiting for the JIT to go quiet. */
    private static final long WARM_UP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * Several rounds, each timing {@code latencyOps} RStore operations and then as many
     * plain copies, so both see the same machine; each percentile reported is the median
     * over rounds, which a burst of noise on a shared host cannot move.
     */
    private void latency(ArrayNode out) {
        int bytes = plan.latencyBytes();
        int ops = plan.latencyOps();
        int rounds = plan.latencyRounds();
        progress.printf("latency: %d-byte reads and writes, %d rounds of %d each%n", bytes, rounds, ops);
        Namespace ns = rstore.createNamespace("bench-latency");
        try (Arena arena = Arena.ofConfined()) {
            RAddress seg = ns.alloc(4096, AllocFlags.GROW | AllocFlags.ZERO);
            MemorySegment remoteLike = arena.allocate(4096, 64);
            MemorySegment localLike = arena.allocate(4096, 64);
            long[] samples = new long[ops];
            try (Mapping m = seg.map(MapFlags.NONE)) {
                for (String op : new String[] {"read", "write"}) {
                    boolean write = op.equals("write");
                    MemorySegment from = write ? localLike : remoteLike;
                    MemorySegment to = write ? remoteLike : localLike;
                    boolean jitQuiet = warmUp(m, write, from, to, bytes, samples);
                    Percentiles[] rstoreRounds = new Percentiles[rounds];
                    Percentiles[] copyRounds = new Percentiles[rounds];
                    for (int r = 0; r < rounds; r++) {
                        rstoreRounds[r] = measureOp(m, write, bytes, samples);
                        copyRounds[r] = measureCopy(from, to, bytes, samples);
                    }
                    Percentiles rstoreP = Percentiles.medianOf(rstoreRounds);
                    Percentiles copyP = Percentiles.medianOf(copyRounds);
                    ObjectNode row = out.addObject();
                    row.put("op", op);
                    row.put("bytes", bytes);
                    row.put("ops", (long) ops * rounds);
                    row.put("rounds", rounds);
                    row.put("jitQuietAfterWarmUp", jitQuiet);
                    putPercentiles(row.putObject("rstoreNanos"), rstoreP);
                    putPercentiles(row.putObject("plainCopyNanos"), copyP);
                    row.put("p50Ratio", rstoreP.p50() / Math.max(1, copyP.p50()));
                }
            }
        } finally {
            rstore.deleteNamespace("bench-latency");
        }
    }

    // ---- global barrier ----

    private static final int BARRIER_WORKERS = 2;

    /**
     * The round time of the global barrier Pregel supersteps use: the coordinator starts a
     * round, each of two workers (a client of its own, as a worker process would be) sees
     * the start flag, writes its finish flag, and the coordinator sees all of them. Rounds
     * as many as a tenth of the latency operations.
     */
    private void barrier(ObjectNode out) {
        int rounds = Math.max(100, plan.latencyOps() / 10);
        progress.printf("barrier: %d workers, %d rounds%n", BARRIER_WORKERS, rounds);
        BarrierLayout layout = new BarrierLayout(BARRIER_WORKERS, 64);
        Namespace ns = rstore.createNamespace("bench-barrier");
        List<RStore> clients = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        try {
            RAddress region = ns.alloc(layout.totalBytes(), AllocFlags.GROW | AllocFlags.ZERO);
            long[] samples = new long[rounds];
            try (BarrierCoordinator coordinator = new BarrierCoordinator(region, layout)) {
                for (int w = 0; w < BARRIER_WORKERS; w++) {
                    RStore client = RStore.connect(rstore.uri(), rstore.settings());
                    clients.add(client);
                    BarrierWorker worker = new BarrierWorker(client.joinNamespace("bench-barrier").raddress(region.address()), layout, w);
                    threads.add(Thread.ofPlatform().daemon().name("bench-barrier-" + w).start(() -> {
                        try (worker) {
                            for (long round = 0; worker.awaitStart(round, 60_000); round++) {
                                worker.finish(round);
                            }
                        }
                    }));
                }
                for (int round = 0; round < rounds; round++) {
                    long start = System.nanoTime();
                    coordinator.start(round);
                    coordinator.awaitRound(round, 60_000);
                    samples[round] = System.nanoTime() - start;
                }
                coordinator.halt();
            }
            for (Thread t : threads) {
                t.join(60_000);
            }
            out.put("workers", BARRIER_WORKERS);
            out.put("rounds", rounds);
            putPercentiles(out.putObject("roundNanos"), Percentiles.of(samples));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            clients.forEach(RStore::close);
            rstore.deleteNamespace("bench-barrier");
        }
    }

    /**
     * Passes of the latency operation and of the plain copy, as the rounds run them, until at
     * least {@link #WARM_UP_OPS} of each were done and one whole pass went by with no
     * compilation finishing and none running or queued at its end ({@link CompileQueue}): the
     * compilation time counter alone moves only when a compile ends, and under emulation a
     * C2 compile takes seconds of the host thread the guest's vCPUs share. Bounded by
     * {@link #WARM_UP_LIMIT_NANOS}; without a compilation monitor, the operations alone.
     *
     * @return whether the JIT was quiet when it ended (false at the bound, or unmonitored)
     */
    private static boolean warmUp(Mapping m, boolean write, MemorySegment from, MemorySegment to, int bytes, long[] samples) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean monitored = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long warmed = 0;
        boolean quiet = false;
        while (warmed < WARM_UP_OPS || (monitored && !quiet && System.nanoTime() - start < WARM_UP_LIMIT_NANOS)) {
            long compiling = monitored ? jit.getTotalCompilationTime() : 0;
            measureOp(m, write, bytes, samples);
            measureCopy(from, to, bytes, samples);
            warmed += samples.length;
            quiet = monitored && jit.getTotalCompilationTime() == compiling && CompileQueue.idle();
        }
        return quiet;
    }

    private static Percentiles measureOp(Mapping m, boolean write, int bytes, long[] samples) {
        for (int i = 0; i < samples.length; i++) {
            samples[i] = timeOp(m, write, bytes);
        }
        return Percentiles.of(samples);
    }

    /**
     * One operation, timed: a method of its own, called thousands of times, which the JIT
     * compiles as such. Timed inside the loop of a method called a few times a run, it ran
     * in whatever that loop had been compiled to by then.
     */
    private static long timeOp(Mapping m, boolean write, int bytes) {
        long start = System.nanoTime();
        if (write) {
            m.write(0, bytes);
        } else {
            m.read(0, bytes);
        }
        return System.nanoTime() - start;
    }

    private static Percentiles measureCopy(MemorySegment from, MemorySegment to, int bytes, long[] samples) {
        for (int i = 0; i < samples.length; i++) {
            samples[i] = timeCopy(from, to, bytes);
        }
        return Percentiles.of(samples);
    }

    private static long timeCopy(MemorySegment from, MemorySegment to, int bytes) {
        long start = System.nanoTime();
        MemorySegment.copy(from, 0, to, 0, bytes);
        return System.nanoTime() - start;
    }

    private static void putPercentiles(ObjectNode node, Percentiles p) {
        node.put("p50", p.p50());
        node.put("p90", p.p90());
        node.put("p99", p.p99());
        node.put("p999", p.p999());
    }

    // ---- plain sockets, for network transports ----

    private void socketBaselines(ObjectNode out) {
        progress.println("plain socket baselines on loopback");
        try {
            Percentiles polling = SocketBaseline.pingPong(plan.latencyBytes(), plan.latencyOps(), true);
            Percentiles blocking = SocketBaseline.pingPong(plan.latencyBytes(), plan.latencyOps(), false);
            putPercentiles(out.putObject("pingPongPollingNanos"), polling);
            putPercentiles(out.putObject("pingPongBlockingNanos"), blocking);
            out.put("bulkGBps", SocketBaseline.bulk(1L << 30, 256L << 20));
            bulkComparison(out.putObject("largeReadVersusSocket"));
        } catch (IOException e) {
            out.put("error", e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Large reads against a plain socket moving the same bytes between memory areas of
     * the same size, alternating over rounds, so both see the same moment of a noisy
     * machine; the ratio is of the medians.
     */
    private void bulkComparison(ObjectNode out) throws IOException, InterruptedException {
        long size = Math.min(256L << 20, plan.bandwidthSizes().getLast());
        int rounds = 5;
        double[] socket = new double[rounds];
        double[] read = new double[rounds];
        Namespace ns = rstore.createNamespace("bench-bulk");
        try {
            RAddress seg = ns.alloc(size, AllocFlags.GROW | AllocFlags.ZERO);
            try (Mapping m = seg.map(MapFlags.NONE)) {
                rstoreGbps(m, false, size, 1, 1); // warm-up
                int reps = (int) Math.max(2, (256L << 20) / size);
                for (int r = 0; r < rounds; r++) {
                    socket[r] = SocketBaseline.bulk(size * reps, size);
                    read[r] = rstoreGbps(m, false, size, 1, reps);
                }
            }
        } finally {
            rstore.deleteNamespace("bench-bulk");
        }
        Arrays.sort(socket);
        Arrays.sort(read);
        out.put("bytes", size);
        out.put("rounds", rounds);
        out.put("socketGBps", socket[rounds / 2]);
        out.put("rstoreReadGBps", read[rounds / 2]);
        out.put("ratio", read[rounds / 2] / socket[rounds / 2]);
    }

    // ---- bandwidth ----

    private void bandwidth(ArrayNode out) {
        Namespace ns = rstore.createNamespace("bench-bandwidth");
        try {
            for (long size : plan.bandwidthSizes()) {
                progress.printf("bandwidth: %s%n", Units.bytes(size));
                RAddress seg = ns.alloc(size, AllocFlags.GROW | AllocFlags.ZERO);
                try (Arena arena = Arena.ofShared(); Mapping m = seg.map(MapFlags.NONE)) {
                    MemorySegment a = sharedMemory() ? mappedFile(arena, size) : arena.allocate(size, 4096);
                    MemorySegment b = arena.allocate(size, 4096);
                    int reps = (int) Math.max(3, plan.bytesPerBandwidthPoint() / size);
                    for (String op : new String[] {"read", "write"}) {
                        boolean write = op.equals("write");
                        copyGbps(a, b, size, 1); // warm-up
                        double copy = copyGbps(write ? b : a, write ? a : b, size, reps);
                        for (int inFlight : plan.inFlight()) {
                            rstoreGbps(m, write, size, inFlight, 1);
                            double gbps = rstoreGbps(m, write, size, inFlight, reps);
                            ObjectNode row = out.addObject();
                            row.put("op", op);
                            row.put("bytes", size);
                            row.put("inFlight", inFlight);
                            row.put("rstoreGBps", gbps);
                            row.put("plainCopyGBps", copy);
                            row.put("ratio", gbps / copy);
                        }
                    }
                }
                ns.free(seg);
            }
        } finally {
            rstore.deleteNamespace("bench-bandwidth");
        }
    }

    /** Reached over a socket: tcp, or rdma on the emulated device (its work requests go over tcp); not shm, not a real device. */
    private boolean overSockets(ServerInfo server) {
        String transport = rstore.transportTo(server);
        return transport.equals("tcp") || transport.equals("rdma") && server.rdma().startsWith("emulated:");
    }

    /** Whether every server is reached through shm: then the plain copy is out of a mapped file too. */
    private boolean sharedMemory() {
        return rstore.servers().stream().allMatch(server -> rstore.transportTo(server).equals("shm"));
    }

    /** A file in /dev/shm mapped in {@code arena}, removed at once (the mapping keeps it). */
    private static MemorySegment mappedFile(Arena arena, long size) {
        try {
            Path file = Files.createTempFile(Path.of("/dev/shm"), "rstore-bench-", "");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                MemorySegment memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                memory.fill((byte) 1); // touch it, as the server's chunks are touched
                return memory;
            } finally {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map a file in /dev/shm for the plain-copy baseline", e);
        }
    }

    /**
     * Moves the whole mapping {@code reps} times, {@code inFlight} such operations
     * outstanding at once, each posted again as soon as it completes (perftest's tx depth):
     * every operation moves all {@code size} bytes, the same remote range into the same local
     * memory, as {@code ib_read_bw}'s do. Split into parts drained together, 16 in flight
     * measured slower than one (docs/measure/notebook.md).
     */
    private static double rstoreGbps(Mapping m, boolean write, long size, int inFlight, int reps) {
        Completion[] window = new Completion[Math.min(inFlight, reps)];
        long start = System.nanoTime();
        for (int i = 0; i < window.length; i++) {
            window[i] = new Completion();
            post(m, write, size, window[i]);
        }
        for (int done = 0, posted = window.length; done < reps; done++) {
            // the oldest first: one queue pair completes in order; a mapping over several servers need not, and
            // then this waits on the oldest while later ones are done, which counts in the figure as time in flight
            Completion oldest = window[done % window.length];
            oldest.join();
            if (posted < reps) {
                post(m, write, size, oldest);
                posted++;
            }
        }
        return (double) size * reps / (System.nanoTime() - start);
    }

    private static void post(Mapping m, boolean write, long size, Completion completion) {
        if (write) {
            m.writeAsync(0, size, completion);
        } else {
            m.readAsync(0, size, completion);
        }
    }

    private static double copyGbps(MemorySegment from, MemorySegment to, long size, int reps) {
        long start = System.nanoTime();
        for (int r = 0; r < reps; r++) {
            MemorySegment.copy(from, 0, to, 0, size);
        }
        return (double) size * reps / (System.nanoTime() - start);
    }

    private static double micros(long nanos) {
        return Math.round(nanos / 100.0) / 10.0;
    }
}

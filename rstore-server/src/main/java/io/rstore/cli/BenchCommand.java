package io.rstore.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.bench.DurabilityBench;
import io.rstore.bench.RStoreBench;
import io.rstore.config.Units;
import io.rstore.net.NetworkCluster;
import io.rstore.transport.rdma.RdmaEnvironment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;

@Command(name = "bench",
        mixinStandardHelpOptions = true,
        header = "Measure RStore's control path, data-path latency and bandwidth.",
        description = {
                "Runs on an embedded cluster (inproc), on a master and servers in this process reached over tcp or shm",
                "(--transport tcp|shm), or against a running cluster (--cluster URI).",
                "Control path: reserve, alloc and map for each size, cold and from the caches.",
                "Latency: p50/p90/p99/p99.9 of small reads and writes. Bandwidth: large reads and writes with",
                "1 and several operations of each size in flight, each posted again as it completes (as perftest's",
                "tx depth). Every data-path figure stands beside the same bytes moved",
                "by a plain MemorySegment.copy in the same run, and their ratio.",
                "Results go to stdout (a table, or JSON with --format json); progress to stderr."})
final class BenchCommand implements Callable<Integer> {

    @Option(names = "--format", description = "table or json (default: ${DEFAULT-VALUE})", defaultValue = "table")
    String format;

    @Option(names = "--servers", description = "memory servers (default: ${DEFAULT-VALUE})", defaultValue = "2")
    int servers;

    @Option(names = "--chunk-size", description = "chunk size (default: ${DEFAULT-VALUE})", defaultValue = "16MiB")
    String chunkSize;

    @Option(names = {"-n", "--ops"}, description = "reads and writes timed per latency round, each (default: 100000 inproc and shm, 10000 over tcp or --cluster)")
    Integer ops;

    @Option(names = {"-r", "--rounds"}, description = "latency rounds; each percentile is the median over rounds (default: ${DEFAULT-VALUE})", defaultValue = "5")
    int rounds;

    @Option(names = "--latency-bytes", description = "bytes per latency operation (default: ${DEFAULT-VALUE})", defaultValue = "8")
    int latencyBytes;

    @Option(names = "--control-max", description = "largest control-path size, from 1 MiB up by 4x (default: ${DEFAULT-VALUE})", defaultValue = "1GiB")
    String controlMax;

    @Option(names = "--bandwidth-max", description = "largest transfer, from 1 MiB up by 4x (default: ${DEFAULT-VALUE})", defaultValue = "256MiB")
    String bandwidthMax;

    @Option(names = "--bandwidth-bytes", description = "bytes each bandwidth measurement moves, at least its size (default: ${DEFAULT-VALUE})",
            defaultValue = "2GiB")
    String bandwidthBytes;

    @Option(names = "--in-flight", split = ",", description = "bandwidth operations kept in flight, each moving the whole size (default: ${DEFAULT-VALUE})", defaultValue = "1,8")
    List<Integer> inFlight;

    @Option(names = "--no-metrics", description = "turn off the client's data-path metrics")
    boolean noMetrics;

    @Option(names = "--transport", defaultValue = "inproc",
            description = {"inproc (embedded); tcp, shm or rdma: a master and servers in this process, reached over loopback, through /dev/shm,",
                    "or over RDMA: the host's device through DiSNI when it has one, else the emulated device (its work requests",
                    "travel over loopback tcp); --rdma-device picks (default: ${DEFAULT-VALUE})"})
    String transport;

    @Option(names = "--rdma-device", defaultValue = "auto",
            description = "with --transport rdma: auto (disni when this host has a usable device, else emulated), disni or emulated (default: ${DEFAULT-VALUE})")
    String rdmaDevice;

    @Option(names = "--durability", description = "with --cluster: measure only what durability costs (control calls, Mapping.persist by size);"
            + " the cluster needs memory servers with a persistence directory")
    boolean durability;

    @Option(names = "--cluster", paramLabel = "URI", description = "measure a running cluster instead, e.g. rstore+tcp://HOST:7400 or rstore+shm://HOST:7400")
    String cluster;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** --rdma-device resolved: disni needs a usable device with an address, auto takes it when there is one. */
    private String rdmaDevice() {
        boolean usable = RdmaEnvironment.unavailable() == null && RdmaEnvironment.deviceAddress() != null;
        return switch (rdmaDevice) {
            case "emulated" -> "emulated";
            case "auto" -> usable ? "disni" : "emulated";
            case "disni" -> {
                if (!usable) {
                    throw new IllegalArgumentException("--rdma-device disni: " + (RdmaEnvironment.unavailable() != null ? RdmaEnvironment.unavailable()
                            : "the RDMA device has no IPv4 address") + " (rstore doctor says more)");
                }
                yield "disni";
            }
            default -> throw new IllegalArgumentException("--rdma-device must be auto, disni or emulated, was " + rdmaDevice);
        };
    }

    @Override
    public Integer call() throws Exception {
        if (!List.of("inproc", "tcp", "shm", "rdma").contains(transport)) {
            throw new IllegalArgumentException("--transport must be inproc, tcp, shm or rdma, was " + transport);
        }
        if (!format.equals("table") && !format.equals("json")) {
            throw new IllegalArgumentException("--format must be table or json, was " + format);
        }
        if (durability) {
            if (cluster == null) {
                throw new IllegalArgumentException("--durability measures a running cluster: give --cluster URI (docs/rstore.md, \"Durability\")");
            }
            try (RStore rstore = RStore.connect(cluster, RStoreSettings.defaults().withClusterSecret(Secrets.fromEnvironment()))) {
                print(new DurabilityBench(rstore, ops == null ? 2_000 : ops, rounds, System.err).run(), BenchCommand::printDurability);
                return 0;
            }
        }
        if (ops == null) {
            ops = (transport.equals("inproc") || transport.equals("shm")) && cluster == null ? 100_000 : 10_000; // round trips take 1000x longer
        }
        if (ops < 1000 || rounds < 1 || latencyBytes < 1 || latencyBytes > 4096 || inFlight.stream().anyMatch(n -> n < 1 || n > 1024)) {
            throw new IllegalArgumentException("--ops must be >= 1000, --rounds >= 1, --latency-bytes 1..4096 and --in-flight values 1..1024");
        }
        RStoreSettings settings = RStoreSettings.defaults()
                .withClusterName("bench")
                .withMemoryServers(servers)
                .withChunkSizeBytes(Units.parseBytes(chunkSize))
                .withServerCapacityBytes(64L << 30)
                .withMetricsEnabled(!noMetrics)
                .withClusterSecret(Secrets.fromEnvironment());
        RStoreBench.Plan plan = new RStoreBench.Plan(sizes(Units.parseBytes(controlMax)), ops, rounds, latencyBytes,
                sizes(Units.parseBytes(bandwidthMax)), inFlight, Units.parseBytes(bandwidthBytes));
        ObjectNode result;
        RStoreBench.warmUp(settings);
        if (cluster != null) {
            try (RStore rstore = RStore.connect(cluster, settings)) {
                result = new RStoreBench(rstore, plan, System.err).run();
            }
        } else if (!transport.equals("inproc")) {
            Path shm = transport.equals("shm") ? Path.of("/dev/shm") : null;
            String device = transport.equals("rdma") ? rdmaDevice() : "";
            // a real device's listeners need its own address (soft devices do not work on 127.0.0.1)
            String host = device.equals("disni") ? RdmaEnvironment.deviceAddress().getHostAddress() : "127.0.0.1";
            InetSocketAddress bind = new InetSocketAddress(host, 0);
            if (!device.isEmpty()) {
                System.err.println("rdma device: " + device + (device.equals("disni") ? " on " + host : " (work requests over loopback tcp)"));
            }
            try (NetworkCluster server = transport.equals("rdma") ? NetworkCluster.startWithRdma(settings, bind, device)
                    : NetworkCluster.start(settings, bind, shm);
                 RStore rstore = RStore.connect(transport.equals("rdma") ? server.rdmaUri(host)
                         : "rstore+" + transport + "://127.0.0.1:" + server.port(), settings)) {
                result = new RStoreBench(rstore, plan, System.err).run();
            }
        } else {
            try (RStore rstore = RStore.embedded(settings)) {
                result = new RStoreBench(rstore, plan, System.err).run();
            }
        }
        print(result, BenchCommand::printTable);
        return 0;
    }

    /** The result as JSON, or as {@code table} prints it. */
    private void print(ObjectNode result, BiConsumer<JsonNode, PrintWriter> table) {
        PrintWriter out = spec.commandLine().getOut();
        if (format.equals("json")) { // the header every command's JSON starts with (docs/json.schema.json), then the figures
            ObjectNode report = JsonReport.header(spec);
            report.setAll(result);
            JsonReport.print(report, out);
        } else {
            table.accept(result, out);
        }
        out.flush();
    }

    private static List<Long> sizes(long max) {
        List<Long> sizes = new ArrayList<>();
        for (long s = 1L << 20; s <= max; s *= 4) {
            sizes.add(s);
        }
        if (sizes.isEmpty() || sizes.getLast() != max) {
            sizes.add(max);
        }
        return sizes;
    }

    private static void printDurability(JsonNode r, PrintWriter out) {
        out.printf("Control calls (microseconds, %d of each)%n", r.get("calls").asInt());
        out.printf("%8s %8s %8s %8s%n", "call", "p50", "p90", "p99");
        for (String call : List.of("alloc", "free", "lookup")) {
            JsonNode p = r.at("/controlCallNanos/" + call);
            out.printf("%8s %8.1f %8.1f %8.1f%n", call, p.get("p50").asDouble() / 1000, p.get("p90").asDouble() / 1000, p.get("p99").asDouble() / 1000);
        }
        out.println();
        out.println("Mapping.persist of freshly written bytes (median of the rounds)");
        out.printf("%10s %12s %12s%n", "size", "micros", "micros/MiB");
        for (JsonNode row : r.get("persist")) {
            out.printf("%10s %12.1f %12.1f%n", Units.bytes(row.get("bytes").asLong()), row.get("medianMicros").asDouble(),
                    row.get("microsPerMiB").asDouble());
        }
    }

    private static void printTable(JsonNode r, PrintWriter out) {
        JsonNode setup = r.get("setup");
        out.printf("RStore bench: transport %s, %d memory servers, %s chunks, metrics %s, memory %s, Java %s, %d cores%n%n",
                setup.get("transport").asText(), setup.get("memoryServers").asInt(), Units.bytes(setup.get("chunkSizeBytes").asLong()),
                setup.get("metricsEnabled").asBoolean() ? "on" : "off",
                setup.get("hugePages").asBoolean() ? "mmap with huge pages" : "Arena.allocate (no huge pages)",
                setup.get("java").asText(), setup.get("cores").asInt());
        out.printf("Every latency sample includes the timer's own cost: p50 %.0f ns for two clock reads.%n",
                setup.get("timerFloorNanos").asDouble());
        out.printf("The bandwidth's plain copy reads from %s.%n%n", setup.get("plainCopySource").asText());
        out.println("Control path (microseconds)");
        out.printf("%10s %12s %14s %10s %12s %10s %12s %10s%n", "size", "reserve", "reserve(pool)", "alloc", "alloc(again)", "map(cold)", "map(cached)", "unmap");
        for (JsonNode row : r.get("controlPath")) {
            out.printf("%10s %12.1f %14.1f %10.1f %12.1f %10.1f %12.1f %10.1f%n", Units.bytes(row.get("bytes").asLong()),
                    row.get("reserveColdMicros").asDouble(), row.get("reserveCachedMicros").asDouble(), row.get("allocMicros").asDouble(),
                    row.get("allocAgainMicros").asDouble(), row.get("mapColdMicros").asDouble(), row.get("mapCachedMicros").asDouble(),
                    row.get("unmapMicros").asDouble());
        }
        out.println();
        out.println("Data-path latency (nanoseconds; median over rounds of each percentile; the plain copy moves the same bytes");
        out.println("between two local segments, timed in the same rounds)");
        out.printf("%6s %6s %9s | %8s %8s %8s %8s | %8s %8s %8s %8s | %9s%n", "op", "bytes", "ops",
                "p50", "p90", "p99", "p99.9", "copy p50", "p90", "p99", "p99.9", "p50 ratio");
        for (JsonNode row : r.get("latency")) {
            JsonNode a = row.get("rstoreNanos");
            JsonNode b = row.get("plainCopyNanos");
            out.printf("%6s %6d %9d | %8.0f %8.0f %8.0f %8.0f | %8.0f %8.0f %8.0f %8.0f | %9.2f%n", row.get("op").asText(),
                    row.get("bytes").asInt(), row.get("ops").asInt(),
                    a.get("p50").asDouble(), a.get("p90").asDouble(), a.get("p99").asDouble(), a.get("p999").asDouble(),
                    b.get("p50").asDouble(), b.get("p90").asDouble(), b.get("p99").asDouble(), b.get("p999").asDouble(),
                    row.get("p50Ratio").asDouble());
        }
        JsonNode socket = r.get("socketBaseline");
        if (socket != null && socket.has("bulkGBps")) {
            out.println();
            out.printf("Plain socket on loopback, same run: %d-byte ping-pong p50 %.0f ns polling, %.0f ns blocking; bulk %.2f GB/s%n",
                    r.at("/latency/0/bytes").asInt(), socket.at("/pingPongPollingNanos/p50").asDouble(),
                    socket.at("/pingPongBlockingNanos/p50").asDouble(), socket.get("bulkGBps").asDouble());
            out.printf("RStore 8-byte read p50 / polling ping-pong p50: %.2f%n",
                    r.at("/latency/0/rstoreNanos/p50").asDouble() / socket.at("/pingPongPollingNanos/p50").asDouble());
            JsonNode bulk = socket.get("largeReadVersusSocket");
            if (bulk != null) {
                out.printf("Large reads against the socket moving the same bytes between memory areas of the same size (%s),%n"
                                + "alternating over %d rounds, medians: rstore %.2f GB/s, socket %.2f GB/s, ratio %.2f%n",
                        Units.bytes(bulk.get("bytes").asLong()), bulk.get("rounds").asInt(), bulk.get("rstoreReadGBps").asDouble(),
                        bulk.get("socketGBps").asDouble(), bulk.get("ratio").asDouble());
            }
        }
        JsonNode barrier = r.get("barrier");
        if (barrier != null && barrier.has("roundNanos")) {
            out.println();
            out.printf("Global barrier round (coordinator start to all %d workers finished, each worker its own client; %d rounds):"
                            + " p50 %.1f us, p90 %.1f us, p99 %.1f us%n", barrier.get("workers").asInt(), barrier.get("rounds").asInt(),
                    barrier.at("/roundNanos/p50").asDouble() / 1000, barrier.at("/roundNanos/p90").asDouble() / 1000,
                    barrier.at("/roundNanos/p99").asDouble() / 1000);
        }
        out.println();
        // MB/s with a decimal, not GB/s with two: a soft device's tens of MB/s read as figures, not as 0.04
        out.println("Bandwidth (MB/s = 10^6 bytes per second)");
        out.printf("%6s %10s %9s %10s %12s %8s%n", "op", "size", "in flight", "rstore", "plain copy", "ratio");
        for (JsonNode row : r.get("bandwidth")) {
            out.printf("%6s %10s %9d %10.1f %12.1f %7.1f%%%n", row.get("op").asText(), Units.bytes(row.get("bytes").asLong()),
                    row.get("inFlight").asInt(), 1000 * row.get("rstoreGBps").asDouble(), 1000 * row.get("plainCopyGBps").asDouble(),
                    100 * row.get("ratio").asDouble());
        }
    }
}

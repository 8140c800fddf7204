package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.online.Dijkstra;
import io.carafe.datasets.Dataset;
import io.carafe.datasets.DatasetCatalog;
import io.carafe.datasets.GraphResolver;
import io.carafe.graph.CarafeGraph;
import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

@Command(name = "bench",
        mixinStandardHelpOptions = true,
        header = "Benchmark the graph store (import, load, Dijkstra), or with --kernels each kernel beside gapbs.",
        description = {"Without --kernels:",
                "1. parses the edge list into a fresh, temporary cache (parse MB/s of text, build time);",
                "2. loads the cached graph into RStore (GB/s of graph bytes);",
                "3. runs full single-source Dijkstra from --sources seeded random vertices with out-edges",
                "   (edges explored per second);",
                "4. deletes the graph and loads it again (GB/s).",
                "A dataset name that is generated skips step 1 (there is no text) and uses the usual cache.",
                "",
                "With --kernels pr,bfs,sssp,wcc,...: runs each kernel's command (e.g. carafe pagerank --algorithm pregel",
                "--iterations 32 --format json) in a JVM of its own, -n times, and reports its compute seconds (the median",
                "of --carafe-trials in each process). With --gapbs DIR it runs the GAP benchmark suite's binary for the",
                "kernel on the same graph right after it (converted once with gapbs's converter and kept under the cache",
                "directory) and prints the ratio of the medians. Kernels:",
                "pr (32 iterations, the engine) and pr-pull (in this process), both against gapbs pr; bfs",
                "(direction-optimizing), bfs-online and bfs-pregel (sssp --hops), against gapbs bfs; sssp",
                "(delta-stepping), sssp-pregel and dijkstra (online), against gapbs sssp -d; wcc (Afforest), wcc-pregel",
                "(hooking on the engine) and wcc-lp (label propagation), against gapbs cc; cdlp and lcc (no gapbs kernel); tc.",
                "The sssp kernels and dijkstra use the graph's weights, or --weights random (1-255 from --seed) if it has none."})
final class BenchCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Option(names = "--sources", defaultValue = "3", description = "Dijkstra runs (default: ${DEFAULT-VALUE})")
    int sources;

    @Option(names = "--format", defaultValue = "table", description = "table or json (default: ${DEFAULT-VALUE})")
    String format;

    @Option(names = "--kernels", split = ",", paramLabel = "K,K,...", description = "run these kernels instead: pr,pr-pull,bfs,bfs-online,bfs-pregel,sssp,sssp-pregel,dijkstra,wcc,wcc-pregel,wcc-lp,cdlp,lcc,tc")
    List<String> kernels;

    @Option(names = {"-n", "--trials"}, defaultValue = "3", description = "with --kernels: runs of each kernel, interleaved (default: ${DEFAULT-VALUE})")
    int trials;

    @Option(names = {"-w", "--workers"}, defaultValue = "2", description = "with --kernels: Pregel workers, and gapbs's OMP_NUM_THREADS (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = {"-r", "--source"}, description = "with --kernels: the source of bfs, sssp and dijkstra (default: a seeded random vertex with out-edges)")
    Long source;

    @Option(names = "--gapbs", paramLabel = "DIR", description = "with --kernels: a built gapbs checkout (github.com/sbeamer/gapbs) to run beside")
    Path gapbs;

    @Option(names = "--carafe-trials", paramLabel = "N", defaultValue = "1",
            description = "with --kernels: trials in each Carafe process, of which the median counts, as --gapbs-trials counts gapbs's;"
                    + " 1 (the default) times a fresh JVM, as a user's command runs; 3 leaves the JIT's warm-up to the first (default: ${DEFAULT-VALUE})")
    int carafeTrials;

    @Option(names = "--gapbs-trials", paramLabel = "N", defaultValue = "3",
            description = "with --gapbs: trials in each gapbs process, of which the median counts, so one slow trial moves no ratio (default: ${DEFAULT-VALUE})")
    int gapbsTrials;

    @Option(names = "--gapbs-delta", defaultValue = "2", description = "gapbs sssp's -d (default: ${DEFAULT-VALUE}, as GAP's own benchmark runs kron and urand)")
    int gapbsDelta;

    @Option(names = "--kernel-timeout", paramLabel = "SECONDS", defaultValue = "3600", description = "bound on one kernel run (default: ${DEFAULT-VALUE})")
    long kernelTimeoutSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        boolean json = JsonReport.json(format); // checked before anything is loaded
        ObjectNode result = JsonReport.header(spec);
        if (kernels != null) {
            boolean allRan;
            try {
                allRan = new KernelBench(this).run(result);
            } catch (KernelBench.KernelFailed e) { // preparing gapbs's graphs, before any kernel ran
                throw new IOException(e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                JsonReport.print(result, out);
            } else {
                KernelBench.print(result, out);
            }
            out.flush();
            return allRan ? 0 : CarafeCli.EXIT_RSTORE;
        }
        result.put("graph", graph.graph);
        Path scratch = Files.createTempDirectory("carafe-bench-");
        // text is parsed afresh into a scratch cache; a generated graph has no text to parse, so its usual cache serves
        boolean generated = !Files.exists(Path.of(graph.graph))
                && DatasetCatalog.load().find(graph.graph).map(Dataset::generated).orElse(false);
        Path importDir = generated ? graph.cacheDir() : scratch;
        try (RStore rstore = cluster.start()) {
            long start = System.nanoTime();
            GraphResolver.Resolved resolved = GraphResolver.resolve(graph.graph, graph.importOptions(), importDir, System.err);
            double importSeconds = (System.nanoTime() - start) / 1e9;
            var report = resolved.imported().report();
            resolved.imported().file().close();
            ObjectNode parse = result.putObject("import");
            parse.put("textBytes", report.bytes);
            parse.put("parseSeconds", report.parseSeconds);
            parse.put("buildSeconds", report.buildSeconds);
            parse.put("totalSeconds", importSeconds);
            parse.put("fromCache", report.fromCache);
            parse.put("parseMBps", report.bytes > 0 ? report.bytes / report.parseSeconds / 1e6 : 0);

            // again, now from the cache just written: open the file, then load into RStore
            long openStart = System.nanoTime();
            GraphResolver.Resolved cached = GraphResolver.resolve(graph.graph, graph.importOptions(), importDir, System.err);
            double openSeconds = (System.nanoTime() - openStart) / 1e9;
            try (GraphFile file = cached.imported().file()) {
                long graphBytes = file.header().verticesBytes() + file.header().edgesBytes() + file.header().weightsBytes();
                long loadStart = System.nanoTime();
                CarafeGraph.load(rstore, cached.name(), file);
                double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
                long mapStart = System.nanoTime();
                try (CarafeGraph g = CarafeGraph.open(rstore, cached.name())) {
                    double mapSeconds = (System.nanoTime() - mapStart) / 1e9;
                    ObjectNode load = result.putObject("cacheLoad");
                    load.put("fromCache", cached.imported().report().fromCache);
                    load.put("graphBytes", graphBytes);
                    load.put("openCacheSeconds", openSeconds);
                    load.put("loadSeconds", loadSeconds);
                    load.put("GBps", graphBytes / loadSeconds / 1e9);
                    load.put("openGraphSeconds", mapSeconds);
                    result.put("vertices", g.vertexCount());
                    result.put("edges", g.edgeCount());
                    dijkstra(g, result.putArray("dijkstra"));
                }
                // a running cluster loads into memory it has had before: delete the graph (copied chunks go back
                // to their servers' pools, zeroed; chunks mapped from the file are let go) and load it again
                CarafeGraph.delete(rstore, cached.name());
                long reloadStart = System.nanoTime();
                CarafeGraph.load(rstore, cached.name(), file);
                double reloadSeconds = (System.nanoTime() - reloadStart) / 1e9;
                ObjectNode reload = result.putObject("cacheReload");
                reload.put("loadSeconds", reloadSeconds);
                reload.put("GBps", graphBytes / reloadSeconds / 1e9);
            }
        } finally {
            try (Stream<Path> files = Files.walk(scratch)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        print(result);
        return 0;
    }

    private void dijkstra(CarafeGraph g, ArrayNode out) {
        SplittableRandom random = new SplittableRandom(42);
        for (int run = 0; run < sources; run++) {
            int source;
            do {
                source = random.nextInt(g.vertexCount());
            } while (g.vertex(source).degree() == 0);
            System.err.printf("dijkstra %d of %d from vertex %d%n", run + 1, sources, g.vertex(source).originalId());
            Dijkstra.Result r = Dijkstra.run(g, source);
            ObjectNode row = out.addObject();
            row.put("source", g.vertex(source).originalId());
            row.put("settled", r.verticesSettled());
            row.put("edgesExplored", r.edgesExplored());
            row.put("seconds", r.seconds());
            row.put("edgesPerSecond", r.edgesPerSecond());
        }
    }

    private void print(ObjectNode r) throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        if (format.equals("json")) {
            JsonReport.print(r, out);
        } else {
            out.printf("Carafe bench: %s, %,d vertices, %,d edges%n%n", r.get("graph").asText(), r.get("vertices").asLong(), r.get("edges").asLong());
            var i = r.get("import");
            if (i.get("textBytes").asLong() > 0) {
                out.printf("import (text -> graph file): %,d bytes parsed in %.2f s = %.0f MB/s; CSR built in %.2f s; total %.2f s%n",
                        i.get("textBytes").asLong(), i.get("parseSeconds").asDouble(), i.get("parseMBps").asDouble(),
                        i.get("buildSeconds").asDouble(), i.get("totalSeconds").asDouble());
            } else {
                out.printf("import: %s in %.2f s (no text to parse)%n", i.get("fromCache").asBoolean() ? "found in the cache" : "generated",
                        i.get("totalSeconds").asDouble());
            }
            var c = r.get("cacheLoad");
            out.printf("cache -> RStore: %,d bytes loaded in %.2f s = %.2f GB/s (opening the cache file: %.3f s)%n",
                    c.get("graphBytes").asLong(), c.get("loadSeconds").asDouble(), c.get("GBps").asDouble(), c.get("openCacheSeconds").asDouble());
            out.printf("open the graph for queries (map its arrays locally): %.2f s%n", c.get("openGraphSeconds").asDouble());
            for (var d : r.get("dijkstra")) {
                out.printf("dijkstra from %d: %,d settled, %,d edges explored in %.2f s = %.1f M edges/s%n", d.get("source").asLong(),
                        d.get("settled").asLong(), d.get("edgesExplored").asLong(), d.get("seconds").asDouble(), d.get("edgesPerSecond").asDouble() / 1e6);
            }
            var again = r.get("cacheReload");
            out.printf("cache -> RStore again, after deleting the graph: %.2f s = %.2f GB/s%n",
                    again.get("loadSeconds").asDouble(), again.get("GBps").asDouble());
        }
        out.flush();
    }
}

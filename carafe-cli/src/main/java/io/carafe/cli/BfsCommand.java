package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.online.Bfs;
import io.carafe.algorithms.resident.DirectionOptimizingBfs;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.ResidentGraph;
import io.carafe.algorithms.references.References;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.Arrays;
import java.util.concurrent.Callable;

@Command(name = "bfs",
        mixinStandardHelpOptions = true,
        header = "Breadth-first search from a source: direction-optimizing in this process, or through the online API.",
        description = {"Prints how many vertices each level holds; with --target, its depth and a path. -o writes",
                "id<TAB>depth<TAB>parent for every vertex (inf and - when unreachable).",
                "direction-optimizing (default): the graph and its in-edges read whole into this process, top-down or",
                "bottom-up level by level with -w threads (GAP's bfs). online: one thread through VertexHandle and",
                "EdgeIterator, reading only the records and edges the search reaches."})
final class BfsCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    QueryOptions query;

    @Spec
    CommandSpec spec;

    @Option(names = "--algorithm", paramLabel = "direction-optimizing|online", defaultValue = "direction-optimizing",
            description = "direction-optimizing: -w threads over the graph read into this process; online: the VertexHandle API"
                    + " (default: ${DEFAULT-VALUE})")
    String method;

    @Option(names = {"-w", "--workers"}, paramLabel = "THREADS", defaultValue = "2", description = "threads of the direction-optimizing search (default: ${DEFAULT-VALUE})")
    int threads;

    @Override
    public Integer call() throws IOException {
        long start = System.nanoTime();
        boolean json = JsonReport.json(query.format); // checked before the graph is loaded
        Trials.check(query.trials);
        Output.check(query.output, "-o");
        cluster.settings();
        boolean online = switch (method) {
            case "online" -> true;
            case "direction-optimizing" -> false;
            default -> throw new IllegalArgumentException("--algorithm must be direction-optimizing or online, was " + method);
        };
        if (online && spec.commandLine().getParseResult().hasMatchedOption("-w")) {
            throw new IllegalArgumentException("--workers sets the threads of the direction-optimizing search; the online one runs on one");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--workers must be >= 1, was " + threads);
        }
        // with --format json the lines for people go nowhere and the report is printed at the end
        PrintWriter out = json ? new PrintWriter(Writer.nullWriter()) : spec.commandLine().getOut();
        ObjectNode report = JsonReport.header(spec);
        int exit = 0;
        try (RStore rstore = cluster.start(); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err);
             Parallel parallel = new Parallel(online ? 1 : threads)) {
            report.put("algorithm", "bfs").put("method", method).put("graph", g.name()).put("vertices", g.graph().vertexCount())
                    .put("edges", g.graph().edgeCount()).put("threads", online ? 1 : threads);
            ObjectNode times = report.putObject("seconds").put("import", g.importSeconds()).put("load", g.loadSeconds());
            int s = g.vertex(query.source, "--source");
            report.set("source", ResolvedGraph.json(query.source));
            DirectionOptimizingBfs search = null;
            if (!online) {
                long setupStart = System.nanoTime();
                search = new DirectionOptimizingBfs(ResidentGraph.read(g.graph()), parallel); // reads the in-edges too
                double setup = (System.nanoTime() - setupStart) / 1e9;
                System.err.printf("read %s and its in-edges into this process in %.2f s%n", g.name(), setup);
                times.put("setup", setup);
            } else {
                times.put("setup", 0.0);
            }
            Bfs.Result r = null;
            double[] seconds = new double[query.trials];
            for (int trial = 0; trial < query.trials; trial++) {
                r = online ? Bfs.run(g.graph(), s) : search.run(s);
                seconds[trial] = r.seconds();
            }
            System.err.printf("bfs: reached %,d vertices, explored %,d edges in %.3f s%s%n", r.verticesReached(), r.edgesExplored(), r.seconds(),
                    online ? "" : " (levels top-down T or bottom-up B: " + search.directions() + ")");
            if (!online) {
                report.put("directions", search.directions());
            }
            int[] depth = r.depth();
            int maxDepth = Arrays.stream(depth).max().orElse(0);
            long[] perLevel = new long[maxDepth + 1];
            for (int d : depth) {
                if (d >= 0) {
                    perLevel[d]++;
                }
            }
            // levels 0 (the source) to maxDepth: the lines below, one per level
            out.printf("reached %,d of %,d vertices from %s in %s (depths 0-%d)%n", r.verticesReached(), depth.length, query.source,
                    Output.count(maxDepth + 1, "level"), maxDepth);
            times.put("compute", r.seconds());
            report.put("reached", r.verticesReached()).put("edgesExplored", r.edgesExplored()).put("maxDepth", maxDepth);
            ArrayNode levels = report.putArray("verticesPerLevel");
            for (int level = 0; level <= maxDepth; level++) {
                out.printf("  level %d: %,d%n", level, perLevel[level]);
                levels.add(perLevel[level]);
            }
            if (query.trials > 1) {
                out.println(Trials.report(seconds, "search", report, (trial, entry) -> { }));
            }
            if (query.target != null) {
                int t = g.vertex(query.target, "--target");
                if (depth[t] < 0) {
                    out.printf("%s is unreachable from %s%n", query.target, query.source);
                } else {
                    StringBuilder path = new StringBuilder();
                    for (int v = t; v >= 0; v = r.parent()[v]) {
                        path.insert(0, (v == t ? "" : " -> ")).insert(0, g.label(v));
                    }
                    out.printf("depth of %s: %d%npath: %s%n", query.target, depth[t], path);
                    report.put("targetDepth", depth[t]);
                }
            }
            if (query.output != null) {
                try (Output file = new Output(query.output)) {
                    CSVPrinter table = file.table("id", "depth", "parent");
                    for (int v = 0; v < depth.length; v++) {
                        table.printRecord(g.label(v), depth[v] < 0 ? "inf" : Integer.toString(depth[v]),
                                r.parent()[v] < 0 ? "-" : g.label(r.parent()[v]));
                    }
                    table.flush();
                    file.commit();
                }
                out.println("wrote " + query.output);
            }
            if (query.verify) {
                boolean ok = Arrays.equals(References.bfsDepths(g.file(), s), depth);
                out.println(ok ? "verify: OK (every depth matches an independent BFS)" : "verify: FAILED (depths differ from an independent BFS)");
                report.put("verified", ok);
                exit = ok ? 0 : 1;
            }
            out.flush();
            times.put("total", (System.nanoTime() - start) / 1e9);
            report.put("peakMemoryBytes", PregelRun.peakMemoryBytes());
        }
        if (json) {
            JsonReport.print(report, spec.commandLine().getOut());
        }
        return exit;
    }
}

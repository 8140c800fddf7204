package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.online.Dijkstra;
import io.carafe.algorithms.references.References;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.concurrent.Callable;

@Command(name = "dijkstra",
        mixinStandardHelpOptions = true,
        header = "Shortest paths from a source (Dijkstra) through the online VertexHandle API.",
        description = {"With --target: prints the distance and the path (original ids). Without: a summary of the",
                "vertices reached; -o writes id<TAB>distance<TAB>predecessor for every vertex (inf and - when",
                "unreachable). Unweighted graphs count hops. Negative weights are refused."})
final class DijkstraCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    QueryOptions query;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        long start = System.nanoTime();
        boolean json = JsonReport.json(query.format); // checked before the graph is loaded
        Trials.check(query.trials);
        Output.check(query.output, "-o");
        cluster.settings();
        // with --format json the lines for people go nowhere and the report is printed at the end
        PrintWriter out = json ? new PrintWriter(Writer.nullWriter()) : spec.commandLine().getOut();
        ObjectNode report = JsonReport.header(spec);
        try (RStore rstore = cluster.start(); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
            report.put("algorithm", "dijkstra").put("method", "online").put("graph", g.name()).put("vertices", g.graph().vertexCount())
                    .put("edges", g.graph().edgeCount());
            times = report.putObject("seconds").put("import", g.importSeconds()).put("load", g.loadSeconds()).put("setup", 0.0);
            commandStart = start;
            int s = g.vertex(query.source, "--source");
            int t = query.target == null ? -1 : g.vertex(query.target, "--target");
            report.set("source", ResolvedGraph.json(query.source));
            if (query.target != null) {
                report.set("target", ResolvedGraph.json(query.target));
            }
            Dijkstra.Result r = null;
            double[] seconds = new double[query.trials];
            for (int trial = 0; trial < query.trials; trial++) {
                r = Dijkstra.run(g.graph(), s, query.output == null ? t : -1);
                seconds[trial] = r.seconds();
            }
            System.err.printf("dijkstra: settled %,d vertices, explored %,d edges in %.3f s (%,.1f M edges/s)%n",
                    r.verticesSettled(), r.edgesExplored(), r.seconds(), r.edgesPerSecond() / 1e6);
            times.put("compute", r.seconds());
            report.put("settled", r.verticesSettled()).put("edgesExplored", r.edgesExplored());
            if (t >= 0) {
                double d = r.distance()[t];
                if (Double.isInfinite(d)) {
                    report.putNull("distance");
                } else {
                    report.put("distance", d);
                }
                ArrayNode ids = report.putArray("path");
                for (int v : r.path(t)) {
                    ids.add(ResolvedGraph.json(g.label(v)));
                }
                out.printf("distance %s -> %s: %s%n", query.source, query.target, Double.isInfinite(d) ? "unreachable" : Output.distance(d));
                int[] path = r.path(t);
                if (path.length > 0) {
                    StringBuilder line = new StringBuilder("path:");
                    for (int i = 0; i < path.length; i++) {
                        line.append(i == 0 ? " " : " -> ").append(g.label(path[i]));
                    }
                    out.println(line.append(" (").append(path.length - 1).append(" edges)"));
                }
            } else {
                long reached = 0;
                double farthest = 0;
                for (double d : r.distance()) {
                    if (!Double.isInfinite(d)) {
                        reached++;
                        farthest = Math.max(farthest, d);
                    }
                }
                out.printf("reached %,d of %,d vertices from %s; largest distance %s%n", reached, g.graph().vertexCount(), query.source, Output.distance(farthest));
                report.put("reached", reached).put("largestDistance", farthest);
            }
            if (query.output != null) {
                write(g, r);
                out.println("wrote " + query.output);
            }
            if (query.trials > 1) {
                out.println(Trials.report(seconds, "search", report, (trial, entry) -> { }));
            }
            if (query.verify) {
                double[] want = References.shortestDistances(g.file(), s);
                boolean allSettled = t < 0 || query.output != null;
                for (int v = allSettled ? 0 : t; v < (allSettled ? want.length : t + 1); v++) {
                    if (Double.compare(want[v], r.distance()[v]) != 0) {
                        out.printf("verify: FAILED at vertex %s: distance %s, expected %s%n", g.label(v),
                                Output.distance(r.distance()[v]), Output.distance(want[v]));
                        out.flush();
                        return finish(json, report.put("verified", false), 1);
                    }
                }
                report.put("verified", true);
                out.println("verify: OK (" + (allSettled ? "every distance matches" : "the target's distance matches") + " an independent Dijkstra)");
            }
            out.flush();
        }
        return finish(json, report, 0);
    }

    private ObjectNode times; // the report's "seconds", completed by finish
    private long commandStart;

    private int finish(boolean json, ObjectNode report, int exit) {
        if (times != null) {
            times.put("total", (System.nanoTime() - commandStart) / 1e9);
        }
        report.put("peakMemoryBytes", PregelRun.peakMemoryBytes());
        if (json) {
            JsonReport.print(report, spec.commandLine().getOut());
        }
        return exit;
    }

    private void write(LoadedGraph g, Dijkstra.Result r) throws IOException {
        try (Output file = new Output(query.output)) {
            CSVPrinter table = file.table("id", "distance", "predecessor");
            for (int v = 0; v < r.distance().length; v++) {
                int p = r.predecessor()[v];
                table.printRecord(g.label(v), Output.distance(r.distance()[v]), p < 0 ? "-" : g.label(p));
            }
            table.flush();
            file.commit();
        }
    }
}

package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.resident.Parallel;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.util.concurrent.Callable;

/**
 * The shape of a command that searches from one source (bfs, dijkstra), as {@link
 * ProgramCommand} is for whole-graph algorithms: load the graph, set the search up, run it
 * -n times, print what it found (with the path to --target), write every vertex's value and
 * predecessor to -o, check the result with the algorithm's verifier (--verify), and end with
 * the lines for people or the JSON report. The lines go to stdout; with --format json only
 * the report does.
 */
abstract class SearchCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    QueryOptions query;

    @Spec
    CommandSpec spec;

    /** The algorithm's name in the log and JSON. */
    abstract String algorithm();

    /** How it searches (in the JSON as "method"); refuses what the options cannot do, before anything is loaded. */
    abstract String method();

    /** Threads the search runs on. */
    int threads() {
        return 1;
    }

    /** The -o columns after the id: the value and the predecessor. */
    abstract String[] columns();

    /** Sets the search up on the loaded graph (what it reads besides the graph counts as setup); false if it needs nothing. */
    abstract boolean setUp(LoadedGraph g, Parallel threads);

    /** Searches once from {@code source}, toward {@code target} (-1: none), keeps what it found and returns its seconds. */
    abstract double search(LoadedGraph g, int source, int target);

    /** What the last search found: lines for people on {@code out}, its figures into the JSON. */
    abstract void report(PrintWriter out, ObjectNode json, LoadedGraph g, int target);

    /** Vertex {@code v}'s value as -o writes it ("inf" when unreached). */
    abstract String value(int v);

    /** Vertex {@code v}'s predecessor on its path from the source, -1 for none. */
    abstract int predecessor(int v);

    /** The last search against an independent reference, by the algorithm's verifier. */
    abstract Verdict verify(LoadedGraph g, int source, int target);

    @Override
    public Integer call() throws IOException {
        long start = System.nanoTime();
        boolean json = JsonReport.json(query.format); // checked before the graph is loaded
        Trials.check(query.trials);
        Output.check(query.output, "-o");
        cluster.settings();
        String method = method();
        PrintWriter out = json ? new PrintWriter(Writer.nullWriter()) : spec.commandLine().getOut();
        ObjectNode report = JsonReport.header(spec);
        int exit = 0;
        try (RStore rstore = cluster.start(); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err);
             Parallel threads = new Parallel(threads())) {
            report.put("algorithm", algorithm()).put("method", method).put("graph", g.name()).put("vertices", g.graph().vertexCount())
                    .put("edges", g.graph().edgeCount()).put("threads", threads());
            ObjectNode times = report.putObject("seconds").put("import", g.importSeconds()).put("load", g.loadSeconds());
            int s = g.vertex(query.source, "--source");
            int t = query.target == null ? -1 : g.vertex(query.target, "--target");
            report.set("source", ResolvedGraph.json(query.source));
            if (query.target != null) {
                report.set("target", ResolvedGraph.json(query.target));
            }
            long setupStart = System.nanoTime();
            if (setUp(g, threads)) {
                double setup = (System.nanoTime() - setupStart) / 1e9;
                System.err.printf("read %s into this process in %.2f s%n", g.name(), setup);
                times.put("setup", setup);
            } else {
                times.put("setup", 0.0);
            }
            double[] seconds = new double[query.trials];
            for (int trial = 0; trial < query.trials; trial++) {
                seconds[trial] = search(g, s, query.output == null ? t : -1); // -o wants every vertex
            }
            times.put("compute", seconds[query.trials - 1]);
            report(out, report, g, t);
            if (query.trials > 1) {
                out.println(Trials.report(seconds, "search", report, (trial, entry) -> { }));
            }
            if (query.output != null) {
                write(g);
                out.println("wrote " + query.output);
            }
            if (query.verify) {
                Verdict verdict = verify(g, s, query.output == null ? t : -1);
                out.println(verdict.line());
                report.put("verified", verdict.agrees());
                exit = verdict.agrees() ? 0 : 1;
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

    private void write(LoadedGraph g) throws IOException {
        try (Output file = new Output(query.output)) {
            String[] columns = columns();
            CSVPrinter table = file.table("id", columns[0], columns[1]);
            for (int v = 0; v < g.graph().vertexCount(); v++) {
                int p = predecessor(v);
                table.printRecord(g.label(v), value(v), p < 0 ? "-" : g.label(p));
            }
            table.flush();
            file.commit();
        }
    }

    /** The path from the source to {@code target} by predecessors, in the graph's names: "a -> b -> c". */
    String path(LoadedGraph g, int target) {
        StringBuilder path = new StringBuilder();
        for (int v = target; v >= 0; v = predecessor(v)) {
            path.insert(0, v == target ? "" : " -> ").insert(0, g.label(v));
        }
        return path.toString();
    }
}

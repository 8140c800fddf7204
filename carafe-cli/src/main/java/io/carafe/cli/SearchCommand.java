package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.references.Verdict;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;

/**
 * The shape of a command that searches from one source (bfs, dijkstra), as {@link
 * ProgramCommand} is for whole-graph algorithms, through the same run in this process
 * ({@link ThreadRun}): load the graph, set the search up, run it -n times, write every
 * vertex's value and predecessor to -o, check the result with the algorithm's verifier
 * (--verify, told on stderr as every command tells it), and end with what it found (with
 * the path to --target) for people on stdout, or the JSON report.
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

    /** Sets the search up on the loaded graph: what it reads into this process ({@link ThreadRun#resident()}) counts as setup. */
    abstract void setUp(ThreadRun run);

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
        long began = System.nanoTime();
        String method = method(); // the options are checked before the graph is loaded
        ThreadRun.Settings settings = new ThreadRun.Settings(threads(), query.trials, query.output, query.format, query.verify);
        try (ThreadRun run = ThreadRun.start(spec, graph, cluster, settings, algorithm(), method, began)) {
            LoadedGraph g = run.graph;
            int s = g.vertex(query.source, "--source");
            int t = query.target == null ? -1 : g.vertex(query.target, "--target");
            int toward = query.output == null ? t : -1; // -o wants every vertex
            run.report.set("source", ResolvedGraph.json(query.source));
            if (query.target != null) {
                run.report.set("target", ResolvedGraph.json(query.target));
            }
            run.run("search", () -> {
                setUp(run);
                return this;
            }, search -> search(g, s, toward));
            StringWriter lines = new StringWriter(); // printed by finish, unless --format json
            report(new PrintWriter(lines), run.report, g, t);
            run.writeValues((v, column, text) -> {
                int p = predecessor(v);
                text.append(column == 0 ? value(v) : p < 0 ? "-" : g.label(p));
            }, columns());
            int exit = run.verify(() -> verify(g, s, toward));
            PrintWriter out = spec.commandLine().getOut();
            run.finish(out, () -> out.print(lines));
            return exit;
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

package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.resident.PullPageRank;
import io.carafe.algorithms.pregel.PageRank;
import io.carafe.algorithms.references.References;
import io.rstore.RStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "pagerank",
        mixinStandardHelpOptions = true,
        header = "PageRank on the Pregel engine, or pulled on threads of this process.",
        description = {"Exactly --iterations iterations (as GraphX's static PageRank), or until the L1 change",
                "of an iteration falls below --tolerance (at most --max-iterations). The rank of dangling vertices",
                "(no out-edges) is spread over all vertices so ranks sum to 1, as LDBC Graphalytics defines it;",
                "--dangling drop loses it instead, as in the original Pregel paper.",
                "Prints the top --top vertices (original ids) and a one-line summary; -o writes every rank.",
                "pregel (default): the vertex program on the partition workers. pull: GAP's pr on -w threads over the graph",
                "and its in-edges read whole into this process."})
final class PageRankCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    EngineOptions engine;

    @Option(names = {"-d", "--damping"}, defaultValue = "0.85", description = "damping factor (default: ${DEFAULT-VALUE}; in gapbs -d is the SSSP delta)")
    double damping;

    @Option(names = {"-i", "--iterations"}, description = "run exactly this many iterations (default: 20 without --tolerance); gapbs's -i is a maximum, used with its tolerance: that is --tolerance with --max-iterations here")
    Integer iterations;

    @Option(names = {"-t", "--tolerance"}, description = "stop once the L1 change of an iteration is below this")
    Double tolerance;

    @Option(names = "--max-iterations", defaultValue = "100", description = "bound with --tolerance (default: ${DEFAULT-VALUE})")
    int maxIterations;

    @Option(names = "--dangling", defaultValue = "spread", description = "spread or drop the rank of dangling vertices (default: ${DEFAULT-VALUE})")
    String dangling;

    @Option(names = {"-k", "--top"}, defaultValue = "10", description = "vertices in the top table (default: ${DEFAULT-VALUE}; in gapbs -k is the average degree of a generated graph)")
    int top;

    @Option(names = "--algorithm", paramLabel = "pregel|pull", defaultValue = "pregel",
            description = "pregel: the engine; pull: -w threads over the graph read into this process (default: ${DEFAULT-VALUE})")
    String method;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        long start = System.nanoTime();
        if (iterations != null && tolerance != null) {
            throw new IllegalArgumentException("give --iterations or --tolerance, not both");
        }
        if (!dangling.equals("spread") && !dangling.equals("drop")) {
            throw new IllegalArgumentException("--dangling must be spread or drop, was " + dangling);
        }
        if (top < 0) {
            throw new IllegalArgumentException("--top must be >= 0");
        }
        int bound = tolerance != null ? maxIterations : (iterations != null ? iterations : 20);
        if (!method.equals("pregel") && !method.equals("pull")) {
            throw new IllegalArgumentException("--algorithm must be pregel or pull, was " + method);
        }
        PageRank program = new PageRank(damping, bound, tolerance != null ? tolerance : 0, dangling.equals("drop")); // checks them, for pull too
        if (method.equals("pull")) {
            return pull(start, bound);
        }
        PrintWriter out = spec.commandLine().getOut();
        engine.options(bound + 1L); // options are checked before anything is imported or loaded
        engine.checkLauncher(cluster);
        if (engine.estimate) {
            try (ResolvedGraph g = ResolvedGraph.resolve(graph, System.err)) {
                PregelRun.printEstimate(spec, "pagerank", g, program, engine, cluster.cluster == null, bound + 1L, out);
            }
            return 0;
        }
        try {
            try (RStore rstore = cluster.start(engine.workerProcesses); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
                try (PregelRun run = PregelRun.run(spec, "pagerank", rstore, g, program, engine, bound + 1L, tolerance == null ? bound + 1L : -1, start)) {
                    double[] ranks = run.result.doubles(0);
                    int updates = run.result.supersteps().size() - 1;
                    double residual = PageRank.residual(run.result.supersteps().getLast().aggregates());
                    int[] best = summarize(run.summary, g, ranks, updates, residual);
                    run.writeValues(engine, "pagerank", (v, value, line) -> line.append(value.getDouble(0)));
                    if (engine.verify && !verify(run.summary, g, ranks, updates)) {
                        run.finish(engine, out);
                        return 1;
                    }
                    if (!run.finish(engine, out)) {
                        printTable(out, g, best, ranks, updates, residual, Output.count(engine.workers, "worker"), run.result.computeSeconds(),
                                run.totalSeconds);
                        run.printTrials(out);
                    }
                }
            }
        } finally {
            cluster.stop();
        }
        return 0;
    }

    /** The figures of a run into the JSON summary; returns the top vertices. */
    private int[] summarize(ObjectNode summary, LoadedGraph g, double[] ranks, int updates, double residual) {
        int[] best = TopK.largest(ranks, top);
        summary.put("iterations", updates);
        summary.put("converged", tolerance != null && residual < tolerance);
        summary.put("residual", residual);
        summary.put("damping", damping);
        summary.put("dangling", dangling);
        ArrayNode topNode = summary.putArray("top");
        for (int v : best) {
            ObjectNode entry = topNode.addObject();
            entry.set("id", ResolvedGraph.json(g.label(v)));
            entry.put("score", ranks[v]);
        }
        return best;
    }

    /** --verify: the ranks against plain power iteration; false (and said) if they differ by more than 1e-9. */
    private boolean verify(ObjectNode summary, LoadedGraph g, double[] ranks, int updates) {
        double[] want = References.pageRank(g.file(), damping, updates, dangling.equals("drop"));
        double worst = 0;
        for (int v = 0; v < want.length; v++) {
            worst = Math.max(worst, Math.abs(want[v] - ranks[v]));
        }
        summary.put("verifyMaxDifference", worst);
        summary.put("verified", worst <= 1e-9);
        System.err.printf("verify: %s (largest difference from power iteration: %.3g)%n", worst <= 1e-9 ? "OK" : "FAILED", worst);
        return worst <= 1e-9;
    }

    private void printTable(PrintWriter out, LoadedGraph g, int[] best, double[] ranks, int updates, double residual, String who, double compute,
                            double total) {
        boolean converged = tolerance != null && residual < tolerance;
        out.printf("%5s %15s %22s%n", "rank", "vertex", "pagerank");
        for (int i = 0; i < best.length; i++) {
            out.printf("%5d %15s %22.15e%n", i + 1, g.label(best[i]), ranks[best[i]]);
        }
        out.printf("pagerank %s: %,d vertices, %,d edges, %s, %s, residual %.3e%s, compute %.2f s, total %.2f s%n",
                g.name(), g.graph().vertexCount(), g.graph().edgeCount(), who, Output.count(updates, "iteration"), residual,
                tolerance == null ? "" : (converged ? ", converged" : ", NOT converged"), compute, total);
        out.flush();
    }

    /**
     * --algorithm pull: the graph read into this process, its in-edges read, then GAP's pull
     * PageRank on -w threads, -n times; the same outputs as the engine's run.
     */
    private int pull(long began, int bound) throws IOException {
        try (ThreadRun run = ThreadRun.start(spec, graph, cluster, engine, bound + 1L, "pagerank", "pull", began)) {
            PullPageRank.Result[] last = new PullPageRank.Result[1];
            run.run(() -> new PullPageRank(run.resident, run.threads),
                    pageRank -> (last[0] = pageRank.run(damping, bound, tolerance != null ? tolerance : 0, dangling.equals("drop"))).seconds());
            PullPageRank.Result r = last[0];
            int[] best = summarize(run.report, run.graph, r.rank(), r.iterations(), r.residual());
            run.writeValues("pagerank", (v, text) -> text.append(r.rank()[v]));
            boolean ok = !engine.verify || verify(run.report, run.graph, r.rank(), r.iterations());
            PrintWriter out = spec.commandLine().getOut();
            run.finish(out, () -> printTable(out, run.graph, best, r.rank(), r.iterations(), r.residual(),
                    "pull with " + Output.count(engine.workers, "thread"), run.compute(), run.total()));
            return ok ? 0 : 1;
        }
    }
}

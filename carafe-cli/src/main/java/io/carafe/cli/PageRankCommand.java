package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.pregel.PageRank;
import io.carafe.algorithms.pregel.PowerIteration;
import io.rstore.RStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "pagerank",
        mixinStandardHelpOptions = true,
        header = "PageRank on the Pregel engine.",
        description = {"Exactly --iterations iterations (as GraphX's static PageRank), or until the L1 change",
                "of an iteration falls below --tolerance (at most --max-iterations). The rank of dangling vertices",
                "(no out-edges) is spread over all vertices so ranks sum to 1, as LDBC Graphalytics defines it;",
                "--dangling drop loses it instead, as in the original Pregel paper.",
                "Prints the top --top vertices (original ids) and a one-line summary; -o writes every rank."})
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
        PageRank program = new PageRank(damping, bound, tolerance != null ? tolerance : 0, dangling.equals("drop"));
        PrintWriter out = spec.commandLine().getOut();
        engine.options(bound + 1L); // options are checked before anything is imported or loaded
        engine.checkLauncher(cluster);
        try {
            try (RStore rstore = cluster.start(engine.workerProcesses); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
                try (PregelRun run = PregelRun.run(spec, "pagerank", rstore, g, program, engine, bound + 1L, start)) {
                    double[] ranks = run.result.doubles(0);
                    int updates = run.result.supersteps().size() - 1;
                    double residual = PageRank.residual(run.result.supersteps().getLast().aggregates());
                    boolean converged = tolerance != null && residual < tolerance;
                    int[] best = TopK.largest(ranks, top);
                    ObjectNode summary = run.summary;
                    summary.put("iterations", updates);
                    summary.put("converged", converged);
                    summary.put("residual", residual);
                    summary.put("damping", damping);
                    summary.put("dangling", dangling);
                    ArrayNode topNode = summary.putArray("top");
                    for (int v : best) {
                        topNode.addObject().put("id", g.originalId(v)).put("score", ranks[v]);
                    }
                    run.writeValues(engine, "pagerank", (v, value, line) -> line.append(value.getDouble(0)));
                    if (engine.verify) {
                        double[] want = PowerIteration.pageRank(g.file(), damping, updates, dangling.equals("drop"));
                        double worst = 0;
                        for (int v = 0; v < want.length; v++) {
                            worst = Math.max(worst, Math.abs(want[v] - ranks[v]));
                        }
                        summary.put("verifyMaxDifference", worst);
                        System.err.printf("verify: %s (largest difference from power iteration: %.3g)%n", worst <= 1e-9 ? "OK" : "FAILED", worst);
                        if (worst > 1e-9) {
                            run.finish(engine, out);
                            return 1;
                        }
                    }
                    if (!run.finish(engine, out)) {
                        out.printf("%5s %15s %22s%n", "rank", "vertex", "pagerank");
                        for (int i = 0; i < best.length; i++) {
                            out.printf("%5d %15d %22.15e%n", i + 1, g.originalId(best[i]), ranks[best[i]]);
                        }
                        out.printf("pagerank %s: %,d vertices, %,d edges, %s, %s, residual %.3e%s, compute %.2f s, total %.2f s%n",
                                g.name(), g.graph().vertexCount(), g.graph().edgeCount(), Output.count(engine.workers, "worker"),
                                Output.count(updates, "iteration"), residual,
                                tolerance == null ? "" : (converged ? ", converged" : ", NOT converged"), run.result.computeSeconds(), run.totalSeconds);
                        out.flush();
                        run.printTrials(out);
                    }
                }
            }
        } finally {
            cluster.stop();
        }
        return 0;
    }
}

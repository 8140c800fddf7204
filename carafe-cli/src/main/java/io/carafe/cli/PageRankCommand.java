package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.pregel.PageRank;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.PullPageRank;
import io.carafe.algorithms.resident.ResidentGraph;
import io.carafe.pregel.VertexProgram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;

@Command(name = "pagerank",
        mixinStandardHelpOptions = true,
        header = "PageRank pulled on threads of this process, or on the Pregel engine, which scales past one machine.",
        description = {"Exactly --iterations iterations (as GraphX's static PageRank), or until the L1 change",
                "of an iteration falls below --tolerance (at most --max-iterations). The rank of dangling vertices",
                "(no out-edges) is spread over all vertices so ranks sum to 1, as LDBC Graphalytics defines it;",
                "--dangling drop loses it instead, as in the original Pregel paper.",
                "Prints the top --top vertices (original ids) and a one-line summary; -o writes every rank.",
                "pull (default): GAP's pr on -w threads over the graph and its in-edges read whole into this process (one machine).",
                "pregel: the vertex program on the partition workers, which may be processes (--worker-processes) and other",
                "machines' (--cluster, --worker-launcher): the one that scales past one machine."})
final class PageRankCommand extends ProgramCommand {
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

    @Option(names = "--algorithm", paramLabel = "pull|pregel", defaultValue = "pull",
            description = "pull: -w threads over the graph read into this process; pregel: the engine, which scales past one machine"
                    + " (default: ${DEFAULT-VALUE})")
    String method;

    private PageRank program; // made (and its parameters checked) before the graph is loaded
    private ObjectNode report; // the run's JSON, which --verify adds to
    private double[] ranks;
    private int updates;
    private double residual;
    private int[] best;

    @Override
    String algorithm() {
        return "pagerank";
    }

    @Override
    String valueName() {
        return "pagerank";
    }

    /** The iterations at most: --iterations, --max-iterations with --tolerance, else 20. */
    private int bound() {
        return tolerance != null ? maxIterations : (iterations != null ? iterations : 20);
    }

    @Override
    long maxSupersteps() {
        return bound() + 1L; // superstep 0 sets the ranks, each after it is one iteration
    }

    @Override
    long expectedSupersteps() {
        return tolerance == null ? bound() + 1L : -1;
    }

    @Override
    boolean mayBroadcast() {
        return true; // rank / out-degree along every out-edge, summed
    }

    @Override
    String threadMethod() {
        return switch (method) {
            case "pull" -> "pull";
            case "pregel" -> null;
            default -> throw new IllegalArgumentException("--algorithm must be pregel or pull, was " + method);
        };
    }

    @Override
    void checkBeforeLoading() {
        if (iterations != null && tolerance != null) {
            throw new IllegalArgumentException("give --iterations or --tolerance, not both");
        }
        if (!dangling.equals("spread") && !dangling.equals("drop")) {
            throw new IllegalArgumentException("--dangling must be spread or drop, was " + dangling);
        }
        if (top < 0) {
            throw new IllegalArgumentException("--top must be >= 0");
        }
        program = new PageRank(damping, bound(), tolerance != null ? tolerance : 0, dangling.equals("drop"));
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        if (program == null) {
            checkBeforeLoading(); // --estimate
        }
        return program;
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) {
        double[] aggregates = run.result.supersteps().getLast().aggregates();
        return summarize(run.summary, g, run.result.doubles(0), run.result.supersteps().size() - 1, PageRank.residual(aggregates));
    }

    /** The figures of a run into the JSON summary, kept for the table; returns the line's words about them. */
    private String summarize(ObjectNode summary, LoadedGraph g, double[] ranks, int updates, double residual) {
        this.report = summary;
        this.ranks = ranks;
        this.updates = updates;
        this.residual = residual;
        best = TopK.largest(ranks, top);
        summary.put("iterations", updates);
        summary.put("converged", converged());
        summary.put("residual", residual);
        summary.put("damping", damping);
        summary.put("dangling", dangling);
        ArrayNode topNode = summary.putArray("top");
        for (int v : best) {
            ObjectNode entry = topNode.addObject();
            entry.set("id", ResolvedGraph.json(g.label(v)));
            entry.put("score", ranks[v]);
        }
        return Output.count(updates, "iteration");
    }

    private boolean converged() {
        return tolerance != null && residual < tolerance;
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return verify(g);
    }

    /** By PageRank's verifier; the largest difference goes into the JSON too. */
    private Verdict verify(LoadedGraph g) {
        double worst = program.largestDifference(g.file(), ranks, updates);
        report.put("verifyMaxDifference", worst);
        return PageRank.verdict(worst);
    }

    /** The top table, then one line with the iterations, the residual and the times. */
    @Override
    void printReport(PrintWriter out, LoadedGraph g, String line, String how, double compute, double total) {
        String who = threadMethod() != null ? how : Output.count(engine.workers, "worker");
        out.printf("%5s %15s %22s%n", "rank", "vertex", "pagerank");
        for (int i = 0; i < best.length; i++) {
            out.printf("%5d %15s %22.15e%n", i + 1, g.label(best[i]), ranks[best[i]]);
        }
        out.printf("pagerank %s: %,d vertices, %,d edges, %s, %s, residual %.3e%s, compute %.2f s, total %.2f s%n",
                g.name(), g.graph().vertexCount(), g.graph().edgeCount(), who, line, residual,
                tolerance == null ? "" : (converged() ? ", converged" : ", NOT converged"), compute, total);
    }

    /** --algorithm pull: GAP's pull PageRank on -w threads over the graph and its in-edges read into this process. */
    @Override
    ThreadKernel threadKernel(LoadedGraph g, ResidentGraph resident, Parallel threads) {
        PullPageRank pull = new PullPageRank(resident, threads);
        return new ThreadKernel() {
            private PullPageRank.Result last;

            @Override
            public double run() {
                last = pull.run(damping, bound(), tolerance != null ? tolerance : 0, dangling.equals("drop"));
                return last.seconds();
            }

            @Override
            public String summarize(ObjectNode report) {
                return PageRankCommand.this.summarize(report, g, last.rank(), last.iterations(), last.residual());
            }

            @Override
            public void format(int v, StringBuilder out) {
                out.append(last.rank()[v]);
            }

            @Override
            public Verdict verify(LoadedGraph graph) {
                return PageRankCommand.this.verify(graph);
            }
        };
    }
}

package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.ResidentGraph;
import io.carafe.pregel.VertexProgram;
import io.rstore.RStore;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * The shape of a command that runs one vertex program: load the graph, run the program,
 * write -o from the values in RStore (as the program formats them), verify against an
 * independent reference if asked, print a line or the JSON summary. A command may offer a
 * kernel that runs on threads of this process instead ({@link #threadMethod()}): then the
 * graph is read whole into the process and the same outputs come from that kernel.
 */
abstract class ProgramCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    EngineOptions engine;

    @Spec
    CommandSpec spec;

    /** The algorithm's name in output and JSON. */
    abstract String algorithm();

    /** The heading of the value column of -o. */
    abstract String valueName();

    abstract VertexProgram program(ResolvedGraph g);

    /** What a command checks of its own options before anything is imported or loaded (after the engine's). */
    void checkBeforeLoading() {
    }

    /** Adds the run's figures to the JSON summary and returns the one-line report. */
    abstract String summarize(PregelRun run, LoadedGraph g) throws IOException;

    /** The values against an independent reference, by the algorithm's verifier. */
    abstract Verdict verify(PregelRun run, LoadedGraph g);

    /**
     * Prints what a run ends with on the terminal (unless --format json): by default one
     * line, "algorithm on graph: {@code line}; {@code how}, compute, total", where how is
     * the supersteps on the engine or the method and threads in this process.
     */
    void printReport(PrintWriter out, LoadedGraph g, String line, String how, double compute, double total) {
        out.printf("%s on %s: %s; %s, compute %.2f s, total %.2f s%n", algorithm(), g.name(), line, how, compute, total);
    }

    long maxSupersteps() {
        return 100_000;
    }

    /** Where a vertex's value holds another vertex's original id (a label, a component), shown by name in a graph of names; -1: none. */
    long vertexIdInValue() {
        return -1;
    }

    /** How many supersteps the job takes, when the options say (a progress bar's length), else -1. */
    long expectedSupersteps() {
        return -1;
    }

    /**
     * Whether the program may run with --messaging gather or hybrid (one double or long per
     * vertex along its out-edges, with a combiner). Asked before the graph is loaded, so a
     * refusal costs nothing; a program that may is checked again by the engine when it runs.
     */
    boolean mayBroadcast() {
        return false;
    }

    /** What --messaging gather or hybrid is told when {@link #mayBroadcast()} is false: why, and what to do instead. */
    String broadcastRefusal() {
        return "--messaging " + engine.messaging + " needs a program that sends one value along its out-edges"
                + " with a combiner (PageRank and BFS do); " + algorithm() + " does not: use push or auto";
    }

    /** A kernel that runs on this process's threads over the graph read whole, in place of the engine. */
    interface ThreadKernel {
        /** Runs the kernel once (again, for -n) and returns its seconds. */
        double run();

        /** Adds the last run's figures to the JSON and returns the table's words about them. */
        String summarize(ObjectNode report);

        /** Vertex v's value as -o writes it. */
        void format(int v, StringBuilder out);

        /** The last run against an independent reference, by the algorithm's verifier. */
        Verdict verify(LoadedGraph g);
    }

    /** The name of the kernel on threads the options ask for (in the JSON as "method"), or null to run the engine. */
    String threadMethod() {
        return null;
    }

    /** The kernel {@link #threadMethod()} names, set up on the resident graph (reading what it needs besides the edges). */
    ThreadKernel threadKernel(LoadedGraph g, ResidentGraph resident, Parallel threads) {
        throw new UnsupportedOperationException(algorithm() + " has no kernel on threads");
    }

    @Override
    public Integer call() throws IOException {
        String method = threadMethod();
        if (method != null) {
            return runOnThreads(method);
        }
        long start = System.nanoTime();
        PrintWriter out = spec.commandLine().getOut();
        engine.options(maxSupersteps()); // options are checked before anything is imported or loaded
        engine.checkLauncher(cluster);
        checkBeforeLoading();
        if ((engine.messaging.equals("gather") || engine.messaging.equals("hybrid")) && !mayBroadcast()) {
            throw new IllegalArgumentException(broadcastRefusal());
        }
        if (engine.estimate) {
            try (ResolvedGraph g = ResolvedGraph.resolve(graph, System.err)) {
                PregelRun.printEstimate(spec, algorithm(), g, program(g), engine, cluster.cluster == null, maxSupersteps(), out);
            }
            return 0;
        }
        try (RStore rstore = cluster.start(engine.workerProcesses); ProcessWorkers processes = PregelRun.processWorkers(rstore, engine);
             LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
            VertexProgram program = program(g.resolved());
            try (PregelRun run = PregelRun.run(spec, algorithm(), rstore, g, program, engine, processes, maxSupersteps(), expectedSupersteps(),
                    start)) {
                String line = summarize(run, g);
                long idAt = g.resolved().names() == null ? -1 : vertexIdInValue();
                run.writeValues(engine, valueName(), (v, value, text) -> {
                    if (idAt >= 0) {
                        text.append(g.labelOf(value.getLong(idAt)));
                    } else {
                        program.formatValue(value, text);
                    }
                });
                if (engine.verify && !tell(verify(run, g), run.summary)) {
                    run.finish(engine, out);
                    return 1;
                }
                if (!run.finish(engine, out)) {
                    printReport(out, g, line, Output.count(run.result.supersteps().size(), "superstep"), run.result.computeSeconds(),
                            run.totalSeconds);
                    out.flush();
                    run.printTrials(out);
                }
            }
        } finally {
            cluster.stop();
        }
        return 0;
    }

    /** Tells a verdict on stderr and in the JSON summary ("verified"); whether the result agrees with the reference. */
    static boolean tell(Verdict verdict, ObjectNode summary) {
        summary.put("verified", verdict.agrees());
        System.err.println(verdict.line());
        return verdict.agrees();
    }

    /**
     * Loads the graph, reads it whole into this process (with what the kernel reads
     * besides), runs the kernel -n times on -w threads and reports as the engine's run does:
     * -o, --verify, the table line or the JSON.
     */
    private int runOnThreads(String method) throws IOException {
        long began = System.nanoTime();
        EngineOptions.refuseEngineOnly(spec, method, algorithm());
        engine.options(maxSupersteps()); // -w, --format, -n and -o
        checkBeforeLoading();
        ThreadRun.Settings settings = new ThreadRun.Settings(engine.workers, engine.trials, engine.output, engine.format, engine.verify);
        try (ThreadRun run = ThreadRun.start(spec, graph, cluster, settings, algorithm(), method, began)) {
            ThreadKernel kernel = run.run("compute", () -> threadKernel(run.graph, run.resident(), run.threads), ThreadKernel::run);
            String line = kernel.summarize(run.report);
            run.writeValues((v, column, text) -> kernel.format(v, text), valueName());
            int exit = run.verify(() -> kernel.verify(run.graph));
            PrintWriter out = spec.commandLine().getOut();
            run.finish(out, () -> printReport(out, run.graph, line, method + " with " + Output.count(engine.workers, "thread"), run.compute(),
                    run.total()));
            return exit;
        }
    }
}

package io.carafe.cli;

import com.codahale.metrics.ConsoleReporter;
import com.codahale.metrics.CsvReporter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.UniformReservoir;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.pregel.MemoryEstimate;
import io.carafe.pregel.Messaging;
import io.carafe.pregel.PregelJob;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;
import io.carafe.progress.Progress;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import io.rstore.protocol.ServerInfo;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The common run of a Pregel command: load the graph, run the program with a progress
 * line per superstep on stderr, write every value if asked, report metrics, and build the
 * JSON summary.
 */
final class PregelRun implements AutoCloseable {
    final LoadedGraph graph;
    final PregelJob.Result result;
    final double totalSeconds;
    final ObjectNode summary;
    private final MetricRegistry metrics = new MetricRegistry();

    private final String trialLine; // null for one trial

    private PregelRun(LoadedGraph graph, PregelJob.Result result, double totalSeconds, ObjectNode summary, String trialLine) {
        this.graph = graph;
        this.result = result;
        this.totalSeconds = totalSeconds;
        this.summary = summary;
        this.trialLine = trialLine;
    }

    static final String HYBRID_RULE = "a partition gathers (dense) when its senders send along more than 1/" + Messaging.DENSE_FRACTION
            + " of its edges, else it pushes (sparse)";

    /** How a superstep's messages travelled: pushed, gathered, or both (a hybrid job chooses per partition and superstep). */
    private static String delivery(PregelJob.Superstep s, int partitions) {
        int dense = s.densePartitions();
        return dense == 0 ? "pushed" : dense == partitions ? "gathered" : "gathered by " + dense + " of " + partitions + " partitions";
    }

    private static PregelJob.Result job(RStore rstore, LoadedGraph graph, VertexProgram program, EngineOptions engine, PregelJob.Options options,
                                        PregelJob.Recovery recovery, Consumer<PregelJob.Superstep> report, ProcessWorkers processes, PrintStream err) {
        if (processes == null) {
            return PregelJob.run(rstore, graph.name(), program, options.withProgress(report).withRecovery(recovery));
        }
        List<ServerInfo> servers = rstore.servers();
        err.printf("starting %d worker processes against %s (their data path: %s)%s%n", options.workers(), rstore.uri(),
                servers.isEmpty() ? "none" : rstore.transportTo(servers.get(0)),
                engine.workerLauncher == null ? "" : " through " + String.join(" ", engine.launcher(0)) + " (worker 0)");
        return PregelJob.run(rstore, graph.name(), program, options.withProgress(report).withRecovery(recovery), processes);
    }

    /**
     * The worker processes of a command run with --worker-processes (null without). Those this
     * host starts itself are started now, before the graph loads, so that their JVMs start and
     * connect meanwhile; through a --worker-launcher each starts with its job, as a launcher
     * need not pass standard input on.
     */
    static ProcessWorkers processWorkers(RStore rstore, EngineOptions engine) {
        if (!engine.workerProcesses) {
            return null;
        }
        ProcessWorkers processes = new ProcessWorkers(engine.superstepTimeoutSeconds, engine::launcher);
        if (engine.workerLauncher == null) {
            processes.prestart(rstore.uri(), engine.workers);
        }
        return processes;
    }

    /** Each trial and min/avg/max of their compute times into the summary; returns the table's line about them. */
    private static String trials(double[][] trials, ObjectNode summary) {
        double[] compute = new double[trials.length];
        for (int t = 0; t < trials.length; t++) {
            compute[t] = trials[t][0];
        }
        return Trials.report(compute, "compute", summary, (t, entry) -> entry.put("setupSeconds", trials[t][1]).put("supersteps", (long) trials[t][2]));
    }

    /** With more than one trial, the line about them (the table's last). */
    void printTrials(PrintWriter out) {
        if (trialLine != null) {
            out.println(trialLine);
            out.flush();
        }
    }

    /** Runs the program (-n times); {@code command} is the command running it, whose parameters the JSON summary records. */
    static PregelRun run(CommandLine.Model.CommandSpec command, String algorithm, RStore rstore, LoadedGraph graph, VertexProgram program,
                         EngineOptions engine, ProcessWorkers processes, long maxSupersteps, long expectedSupersteps, long commandStart) {
        PrintStream err = System.err;
        MetricRegistry registry = new MetricRegistry();
        Histogram superstepMillis = registry.register("carafe.superstep.millis", new Histogram(new UniformReservoir()));
        Histogram superstepMessages = registry.register("carafe.superstep.messages", new Histogram(new UniformReservoir()));
        // a gathering job's setup is kept with the graph cache, for the next job on this graph
        PregelJob.Options options = engine.options(maxSupersteps).withGatherPlans(graph.file().path().resolveSibling("plans"));
        PregelJob.Recovery recovery = engine.recovery(graph.name(), command.root().commandLine().getParseResult().originalArgs(), err);
        err.printf("%s on %s with %s%n", algorithm, graph.name(), Output.count(options.workers(), "worker"));
        // on a terminal a bar counts the supersteps; elsewhere a line each, as logs want them
        Progress[] bar = new Progress[1];
        Consumer<PregelJob.Superstep> report = s -> {
            if (bar[0] != null) {
                bar[0].update(s.index() + 1, String.format("superstep %d: %,d active, %,d messages %s", s.index(), s.computedVertices(), s.messages(),
                        delivery(s, options.workers())));
            } else {
                err.printf("superstep %3d: %,12d active, %,14d messages %s, %,8.1f MB through RStore, %.3f s%n",
                        s.index(), s.computedVertices(), s.messages(), delivery(s, options.workers()), s.bytesMoved() / 1e6, s.seconds());
            }
            superstepMillis.update((long) (s.seconds() * 1000));
            superstepMessages.update(s.messages());
        };
        PregelJob.Result result = null;
        double[][] trials = new double[engine.trials][]; // compute, setup, supersteps of each trial
        for (int t = 0; t < engine.trials; t++) {
            if (result != null) {
                result.close(); // only the last trial's values are kept
            }
            if (engine.trials > 1) {
                err.printf("trial %d of %d%n", t + 1, engine.trials);
            }
            if (Progress.barsOnStderr()) {
                bar[0] = Progress.start(err, algorithm + " on " + graph.name(), Math.max(0, expectedSupersteps), " supersteps", 1);
            }
            try {
                result = job(rstore, graph, program, engine, options, recovery, report, processes, err);
            } finally {
                if (bar[0] != null) {
                    bar[0].close();
                    bar[0] = null;
                }
            }
            trials[t] = new double[] {result.computeSeconds(), result.setupSeconds(), result.supersteps().size()};
        }
        err.printf("messaging: %s%s%n", result.messaging().name().toLowerCase(Locale.ROOT),
                result.messaging() == Messaging.HYBRID ? " (" + HYBRID_RULE + ")" : "");
        double total = (System.nanoTime() - commandStart) / 1e9;
        ObjectNode summary = summaryHeader(command, algorithm, graph.resolved());
        summary.put("workers", options.workers());
        summary.put("messaging", result.messaging().name().toLowerCase(Locale.ROOT));
        if (result.messaging() == Messaging.HYBRID) {
            summary.put("hybridRule", HYBRID_RULE);
        }
        ObjectNode seconds = summary.putObject("seconds");
        seconds.put("import", graph.importSeconds());
        seconds.put("load", graph.loadSeconds());
        seconds.put("setup", result.setupSeconds());
        seconds.put("compute", result.computeSeconds());
        seconds.put("total", total);
        ArrayNode steps = summary.putArray("supersteps");
        for (PregelJob.Superstep s : result.supersteps()) {
            ObjectNode o = steps.addObject();
            o.put("superstep", s.index());
            o.put("seconds", s.seconds());
            o.put("messages", s.messages());
            o.put("activeVertices", s.computedVertices());
            o.put("notHalted", s.activeVertices());
            o.put("bytesMoved", s.bytesMoved());
            o.put("delivery", s.densePartitions() == 0 ? "push" : s.densePartitions() == options.workers() ? "gather" : "mixed");
            o.put("gatheringPartitions", s.densePartitions());
        }
        summary.put("checkpointEvery", engine.checkpointEvery);
        ArrayNode restarts = summary.putArray("restarts");
        for (PregelJob.Restart r : result.restarts()) {
            restarts.addObject().put("failedInSuperstep", r.failedInSuperstep()).put("failure", r.failure()).put("resumedFrom", r.resumedFrom());
        }
        summary.put("peakMemoryBytes", peakMemoryBytes());
        String trialLine = engine.trials == 1 ? null : trials(trials, summary);
        PregelRun run = new PregelRun(graph, result, total, summary, trialLine);
        run.metrics.registerAll(registry);
        run.metrics.register("rstore", rstore.metrics());
        return run;
    }

    /** The JSON summary's first fields: the command's header, then the algorithm and the graph. */
    private static ObjectNode summaryHeader(CommandLine.Model.CommandSpec command, String algorithm, ResolvedGraph graph) {
        ObjectNode summary = JsonReport.header(command);
        summary.put("algorithm", algorithm);
        summary.put("graph", graph.name());
        summary.put("vertices", graph.header().vertexCount());
        summary.put("edges", graph.header().edgeCount());
        return summary;
    }

    /**
     * --estimate: prints what the job would hold at its peak, per process, as a table or
     * (--format json) a summary, in place of running it: from the graph file's header,
     * before the cluster starts or the graph is loaded.
     */
    static void printEstimate(CommandLine.Model.CommandSpec command, String algorithm, ResolvedGraph graph, VertexProgram program,
                              EngineOptions engine, boolean embedded, long maxSupersteps, PrintWriter out) {
        MemoryEstimate estimate = MemoryEstimate.of(graph.header(), program, engine.options(maxSupersteps),
                engine.workerProcesses, embedded);
        if (engine.format.equals("json")) {
            ObjectNode summary = summaryHeader(command, algorithm, graph);
            summary.put("peakBytes", estimate.peakBytes());
            ArrayNode processes = summary.putArray("processes");
            for (MemoryEstimate.Process p : estimate.processes()) {
                ObjectNode o = processes.addObject().put("process", p.name()).put("bytes", p.bytes());
                ArrayNode parts = o.putArray("parts");
                p.parts().forEach(part -> parts.addObject().put("part", part.what()).put("bytes", part.bytes()));
            }
            JsonReport.print(summary, out);
            return;
        }
        out.printf("%s on %s (%,d vertices, %,d edges, %s), estimated memory at the job's peak:%n", algorithm, graph.name(),
                graph.header().vertexCount(), graph.header().edgeCount(), Output.count(engine.workers, "worker"));
        out.print(estimate.describe());
        out.flush();
    }

    /** How -o writes one vertex's value. */
    interface ValueFormat {
        void append(int vertex, RecordView value, StringBuilder out);
    }

    /**
     * Writes {@code id<sep>value} for every vertex (original ids), if -o was given,
     * streaming the values out of RStore a window at a time.
     */
    void writeValues(EngineOptions engine, String valueName, ValueFormat format) throws IOException {
        if (engine.output == null) {
            return;
        }
        try (Output out = new Output(engine.output)) {
            CSVPrinter table = out.table("id", valueName);
            StringBuilder text = new StringBuilder();
            result.forEachValue((v, value) -> {
                text.setLength(0);
                format.append(v, value, text);
                table.printRecord(graph.label(v), text);
            });
            table.flush();
            out.commit();
        }
        System.err.println("wrote " + engine.output);
    }

    /** Deletes the job and its values. */
    @Override
    public void close() {
        result.close();
    }

    /** Prints the summary as JSON if asked (then the table is skipped), and reports metrics. */
    boolean finish(EngineOptions engine, PrintWriter out) throws IOException {
        if (engine.metrics != null) {
            if (engine.metrics.equals("console")) {
                ConsoleReporter.forRegistry(metrics).outputTo(System.err).convertRatesTo(TimeUnit.SECONDS)
                        .convertDurationsTo(TimeUnit.MICROSECONDS).build().report();
            } else {
                Path dir = Path.of(engine.metrics.substring(4));
                Files.createDirectories(dir);
                CsvReporter.forRegistry(metrics).build(dir.toFile()).report();
                System.err.println("metrics written to " + dir);
            }
        }
        if (engine.format.equals("json")) {
            JsonReport.print(summary, out);
            return true;
        }
        return false;
    }

    /** Peak resident memory of this process (VmHWM), or -1 where /proc is missing. */
    static long peakMemoryBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: no figure
        }
        return -1;
    }
}

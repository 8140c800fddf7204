package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.ResidentGraph;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The common run of every command whose kernel runs on threads of this process, as {@link
 * PregelRun} is for the engine's: a whole-graph kernel over the graph read whole (Afforest,
 * Δ-stepping, pull PageRank) or a search from a source (bfs, dijkstra). The graph loaded,
 * the kernel set up and run -n times, -o, --verify, and the JSON figures every such command
 * reports ({@code method}, {@code threads}, {@code seconds{import, load, setup, compute,
 * total}}, trials, peak memory), or the table's lines.
 */
final class ThreadRun implements AutoCloseable {
    /** What a run in this process is asked (its threads, -n, -o, --format, --verify), checked when made. */
    record Settings(int threads, int trials, Path output, String format, boolean verify) {
        Settings {
            JsonReport.json(format);
            Trials.check(trials);
            Output.check(output, "-o");
        }
    }

    final LoadedGraph graph;
    final Parallel threads;
    final ObjectNode report;
    private final Settings settings;
    private final ClusterOptions cluster;
    private final RStore rstore;
    private final long began;
    private ResidentGraph resident; // read when a kernel asks for it
    private double compute;
    private double total;
    private String trialLine;

    private ThreadRun(ClusterOptions cluster, RStore rstore, LoadedGraph graph, Parallel threads, Settings settings, ObjectNode report, long began) {
        this.cluster = cluster;
        this.rstore = rstore;
        this.graph = graph;
        this.threads = threads;
        this.settings = settings;
        this.report = report;
        this.began = began;
    }

    /**
     * Checks the cluster's options, then starts the cluster and loads the graph. {@code
     * began}: when the command started, for the total.
     */
    static ThreadRun start(CommandSpec spec, GraphOptions options, ClusterOptions cluster, Settings settings, String algorithm, String method,
                           long began) {
        cluster.settings();
        RStore rstore = cluster.start();
        LoadedGraph g = null;
        Parallel threads = null;
        try {
            g = LoadedGraph.load(rstore, options, System.err);
            threads = new Parallel(settings.threads());
            ObjectNode report = JsonReport.header(spec);
            report.put("algorithm", algorithm).put("method", method).put("graph", g.name()).put("vertices", g.graph().vertexCount())
                    .put("edges", g.graph().edgeCount()).put("threads", settings.threads());
            report.putObject("seconds").put("import", g.importSeconds()).put("load", g.loadSeconds());
            return new ThreadRun(cluster, rstore, g, threads, settings, report, began);
        } catch (RuntimeException e) {
            if (threads != null) {
                threads.close();
            }
            if (g != null) {
                g.close();
            }
            rstore.close();
            cluster.stop();
            throw e;
        }
    }

    /** The graph (with its in-edges) read whole into this process, on the first call. */
    ResidentGraph resident() {
        if (resident == null) {
            resident = ResidentGraph.read(graph.graph());
        }
        return resident;
    }

    /**
     * Sets the kernel up (reading the graph into this process, and what else it reads or
     * builds, counts as setup) and runs it -n times; {@code trial} names a trial's seconds
     * in the table ("compute", "search").
     */
    <K> K run(String trial, Supplier<K> setUp, ToDoubleFunction<K> once) {
        long start = System.nanoTime();
        K kernel = setUp.get();
        double setup = (System.nanoTime() - start) / 1e9;
        if (resident != null) {
            System.err.printf("read %s into this process and set the kernel up in %.2f s%n", graph.name(), setup);
        }
        double[] seconds = new double[settings.trials()];
        for (int t = 0; t < settings.trials(); t++) {
            seconds[t] = once.applyAsDouble(kernel);
        }
        compute = seconds[settings.trials() - 1];
        total = (System.nanoTime() - began) / 1e9;
        ((ObjectNode) report.get("seconds")).put("setup", setup).put("compute", compute).put("total", total);
        trialLine = settings.trials() > 1 ? Trials.report(seconds, trial, report, (t, entry) -> { }) : null;
        return kernel;
    }

    double compute() {
        return compute;
    }

    double total() {
        return total;
    }

    /** How -o writes a cell of vertex v's row: its {@code column}th after the id. */
    interface Cell {
        void append(int v, int column, StringBuilder out);
    }

    /** Writes {@code id<sep>column...} for every vertex (original ids), if -o was given. */
    void writeValues(Cell cell, String... columns) throws IOException {
        if (settings.output() == null) {
            return;
        }
        try (Output file = new Output(settings.output())) {
            String[] header = new String[columns.length + 1];
            header[0] = "id";
            System.arraycopy(columns, 0, header, 1, columns.length);
            CSVPrinter table = file.table(header);
            StringBuilder[] row = new StringBuilder[columns.length];
            for (int c = 0; c < columns.length; c++) {
                row[c] = new StringBuilder();
            }
            for (int v = 0; v < graph.graph().vertexCount(); v++) {
                table.print(graph.label(v));
                for (int c = 0; c < columns.length; c++) {
                    row[c].setLength(0);
                    cell.append(v, c, row[c]);
                    table.print(row[c]);
                }
                table.println();
            }
            table.flush();
            file.commit();
        }
        System.err.println("wrote " + settings.output());
    }

    /** With --verify: the last run against an independent reference, told on stderr and in the JSON; the exit code it asks for. */
    int verify(Supplier<Verdict> check) {
        if (!settings.verify()) {
            return 0;
        }
        return ProgramCommand.tell(check.get(), report) ? 0 : 1;
    }

    /** Prints the JSON summary if asked, else runs {@code table} and adds the trials' line. */
    void finish(PrintWriter out, Runnable table) {
        report.put("peakMemoryBytes", PregelRun.peakMemoryBytes());
        if (JsonReport.json(settings.format())) {
            JsonReport.print(report, out);
            return;
        }
        table.run();
        if (trialLine != null) {
            out.println(trialLine);
        }
        out.flush();
    }

    @Override
    public void close() {
        try {
            threads.close();
            graph.close();
            rstore.close();
        } finally {
            cluster.stop();
        }
    }
}

package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.ResidentGraph;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The common run of a command whose kernel runs on threads of this process over the graph
 * read whole from RStore (Afforest, Δ-stepping, pull PageRank), as {@link PregelRun} is for
 * the engine's: the engine's own options refused, the graph loaded and read, -n trials,
 * -o, and the JSON figures every such command reports ({@code method}, {@code threads},
 * {@code seconds{import, load, setup, compute, total}}, trials, peak memory).
 */
final class ThreadRun implements AutoCloseable {
    final LoadedGraph graph;
    final ResidentGraph resident;
    final Parallel threads;
    final ObjectNode report;
    private final ClusterOptions cluster;
    private final RStore rstore;
    private final EngineOptions engine;
    private final long began;
    private final double readSeconds;
    private double compute;
    private double total;
    private String trialLine;

    private ThreadRun(ClusterOptions cluster, RStore rstore, LoadedGraph graph, ResidentGraph resident, Parallel threads, EngineOptions engine,
                      ObjectNode report, long began, double readSeconds) {
        this.cluster = cluster;
        this.rstore = rstore;
        this.graph = graph;
        this.resident = resident;
        this.threads = threads;
        this.engine = engine;
        this.report = report;
        this.began = began;
        this.readSeconds = readSeconds;
    }

    /**
     * Refuses the engine's options and checks the others before anything is loaded, then
     * starts the cluster, loads the graph and reads it into this process. {@code began}: when
     * the command started, for the total.
     */
    static ThreadRun start(CommandSpec spec, GraphOptions options, ClusterOptions cluster, EngineOptions engine, long maxSupersteps,
                           String algorithm, String method, long began) {
        EngineOptions.refuseEngineOnly(spec, method, algorithm);
        engine.options(maxSupersteps); // -w, --format and -n
        cluster.settings();
        RStore rstore = cluster.start();
        LoadedGraph g = null;
        Parallel threads = null;
        try {
            g = LoadedGraph.load(rstore, options, System.err);
            threads = new Parallel(engine.workers);
            long readStart = System.nanoTime();
            ResidentGraph resident = ResidentGraph.read(g.graph());
            ObjectNode report = JsonReport.header(spec);
            report.put("algorithm", algorithm).put("method", method).put("graph", g.name()).put("vertices", g.graph().vertexCount())
                    .put("edges", g.graph().edgeCount()).put("threads", engine.workers);
            return new ThreadRun(cluster, rstore, g, resident, threads, engine, report, began, (System.nanoTime() - readStart) / 1e9);
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

    /** Sets the kernel up on the resident graph (what it reads or builds besides counts as setup) and runs it -n times. */
    <K> K run(Supplier<K> setUp, ToDoubleFunction<K> once) {
        long start = System.nanoTime();
        K kernel = setUp.get();
        double setup = readSeconds + (System.nanoTime() - start) / 1e9;
        System.err.printf("read %s into this process and set the kernel up in %.2f s%n", graph.name(), setup);
        double[] seconds = new double[engine.trials];
        for (int t = 0; t < engine.trials; t++) {
            seconds[t] = once.applyAsDouble(kernel);
        }
        compute = seconds[engine.trials - 1];
        total = (System.nanoTime() - began) / 1e9;
        report.putObject("seconds").put("import", graph.importSeconds()).put("load", graph.loadSeconds()).put("setup", setup)
                .put("compute", compute).put("total", total);
        trialLine = engine.trials > 1 ? Trials.report(seconds, "compute", report, (t, entry) -> { }) : null;
        return kernel;
    }

    double compute() {
        return compute;
    }

    double total() {
        return total;
    }

    /** How -o writes vertex v's value. */
    interface ValueText {
        void append(int v, StringBuilder out);
    }

    /** Writes {@code id<sep>value} for every vertex (original ids), if -o was given. */
    void writeValues(String valueName, ValueText value) throws IOException {
        if (engine.output == null) {
            return;
        }
        try (Output file = new Output(engine.output)) {
            CSVPrinter table = file.table("id", valueName);
            StringBuilder text = new StringBuilder();
            for (int v = 0; v < graph.graph().vertexCount(); v++) {
                text.setLength(0);
                value.append(v, text);
                table.printRecord(graph.label(v), text);
            }
            table.flush();
            file.commit();
        }
        System.err.println("wrote " + engine.output);
    }

    /** Prints the JSON summary if asked, else runs {@code table} and adds the trials' line. */
    void finish(PrintWriter out, Runnable table) {
        report.put("peakMemoryBytes", PregelRun.peakMemoryBytes());
        if (JsonReport.json(engine.format)) {
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

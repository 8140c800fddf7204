package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.online.Afforest;
import io.carafe.algorithms.online.Parallel;
import io.carafe.algorithms.online.ResidentGraph;
import io.carafe.algorithms.pregel.ConnectedComponents;
import io.carafe.algorithms.pregel.References;
import io.carafe.pregel.VertexProgram;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import org.apache.commons.csv.CSVPrinter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;

@Command(name = "wcc",
        mixinStandardHelpOptions = true,
        header = "Weakly connected components: Afforest in this process, or label propagation on the Pregel engine.",
        description = {"Direction is ignored, so the graph is imported with both directions stored (as -s).",
                "A component's label is its smallest original vertex id. -o writes every vertex's label.",
                "afforest (default): a concurrent union-find over the graph read whole into this process, -w threads (GAP's cc).",
                "propagation: min-label propagation by the partition workers, which may be processes (--worker-processes)."})
final class WccCommand extends ProgramCommand {
    /** Options only the Pregel engine reads; Afforest refuses them rather than ignore them. */
    private static final List<String> PREGEL_ONLY = List.of("--worker-processes", "--worker-launcher", "--messaging", "--partition-weights",
            "--superstep-timeout", "--checkpoint-every", "--checkpoint-dir", "--max-restarts", "--metrics", "--resume-checkpoints");

    @Option(names = "--algorithm", paramLabel = "afforest|propagation", defaultValue = "afforest",
            description = "afforest: union-find in this process with -w threads; propagation: label propagation on the Pregel engine"
                    + " (default: ${DEFAULT-VALUE})")
    String method;

    @Override
    public Integer call() throws IOException {
        graph.undirected = true;
        switch (method) {
            case "propagation" -> {
                return super.call();
            }
            case "afforest" -> {
                return afforest();
            }
            default -> throw new IllegalArgumentException("--algorithm must be afforest or propagation, was " + method);
        }
    }

    private int afforest() throws IOException {
        long began = System.nanoTime();
        var parsed = spec.commandLine().getParseResult();
        for (String option : PREGEL_ONLY) {
            if (parsed.hasMatchedOption(option)) {
                throw new IllegalArgumentException(option + " is an option of the Pregel engine, and Afforest runs in this process:"
                        + " add --algorithm propagation to run label propagation on partition workers");
            }
        }
        engine.options(maxSupersteps()); // -w, --format and -n checked before anything is loaded
        PrintWriter out = spec.commandLine().getOut();
        ObjectNode report = JsonReport.header(spec);
        try (RStore rstore = cluster.start(); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err);
             Parallel threads = new Parallel(engine.workers)) {
            ResidentGraph resident = ResidentGraph.read(g.graph());
            System.err.printf("read %s into this process in %.2f s%n", g.name(), resident.readSeconds());
            Afforest.Result r = null;
            double[] seconds = new double[engine.trials];
            for (int t = 0; t < engine.trials; t++) {
                r = Afforest.run(resident, threads);
                seconds[t] = r.seconds();
            }
            double total = (System.nanoTime() - began) / 1e9;
            report.put("algorithm", algorithm()).put("method", "afforest").put("graph", g.name())
                    .put("vertices", g.graph().vertexCount()).put("edges", g.graph().edgeCount()).put("threads", engine.workers);
            report.putObject("seconds").put("import", g.importSeconds()).put("load", g.loadSeconds()).put("setup", resident.readSeconds())
                    .put("compute", r.seconds()).put("total", total);
            report.put("components", r.components()).put("largestComponent", r.largest());
            String trials = engine.trials > 1 ? Trials.report(seconds, "compute", report, (t, entry) -> { }) : null;
            if (engine.output != null) {
                try (Output file = new Output(engine.output)) {
                    CSVPrinter table = file.table("id", valueName());
                    long[] labels = r.labels();
                    for (int v = 0; v < labels.length; v++) {
                        table.printRecord(g.originalId(v), labels[v]);
                    }
                    table.flush();
                    file.commit();
                }
                System.err.println("wrote " + engine.output);
            }
            int exit = 0;
            if (engine.verify) {
                String problem = firstDifference(g, References.weakComponents(g.file()), r.labels());
                report.put("verified", problem == null);
                System.err.println(problem == null ? "verify: OK (every value matches an independent implementation)" : "verify: FAILED (" + problem + ")");
                exit = problem == null ? 0 : 1;
            }
            report.put("peakMemoryBytes", PregelRun.peakMemoryBytes());
            if (JsonReport.json(engine.format)) {
                JsonReport.print(report, out);
            } else {
                out.printf("%s on %s: %s; the largest has %,d of %,d vertices (label %d); afforest with %s, compute %.2f s, total %.2f s%n",
                        algorithm(), g.name(), Output.count(r.components(), "component"), r.largest(), g.graph().vertexCount(), r.largestLabel(),
                        Output.count(engine.workers, "thread"), r.seconds(), total);
                if (trials != null) {
                    out.println(trials);
                }
                out.flush();
            }
            return exit;
        } finally {
            cluster.stop();
        }
    }

    @Override
    String algorithm() {
        return "wcc";
    }

    @Override
    String valueName() {
        return "component";
    }

    @Override
    VertexProgram program(LoadedGraph g) {
        return new ConnectedComponents();
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) throws IOException {
        Long2IntOpenHashMap sizes = new Long2IntOpenHashMap();
        run.result.forEachValue((v, label) -> sizes.addTo(label.getLong(0), 1));
        long largestLabel = -1;
        int largest = 0;
        for (Long2IntOpenHashMap.Entry e : sizes.long2IntEntrySet()) {
            if (e.getIntValue() > largest) {
                largest = e.getIntValue();
                largestLabel = e.getLongKey();
            }
        }
        run.summary.put("components", sizes.size());
        run.summary.put("largestComponent", largest);
        return String.format("%s; the largest has %,d of %,d vertices (label %d)", Output.count(sizes.size(), "component"), largest,
                run.result.vertexCount(), largestLabel);
    }

    @Override
    String verify(PregelRun run, LoadedGraph g) {
        return firstDifference(g, References.weakComponents(g.file()), run.result.longs(0));
    }
}

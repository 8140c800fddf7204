package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.GraphStoreException;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.cli.ClusterOption;
import io.rstore.cli.JsonReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;

/** The graphs a running cluster holds: what commands with --cluster loaded and left there for the next one. */
@Command(name = "graphs",
        mixinStandardHelpOptions = true,
        header = "List or drop the graphs loaded into a running RStore cluster.",
        description = {"A command run with --cluster loads its graph into the cluster and leaves it there; the next command on the",
                "same graph (same source, same import options) uses it as it is. Different graphs of one name need --replace or a drop."},
        subcommands = {GraphsCommand.ListGraphs.class, GraphsCommand.Drop.class})
final class GraphsCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getErr());
    }

    @Command(name = "list", mixinStandardHelpOptions = true, header = "The graphs in the cluster: vertices, edges, weighted, source.")
    static final class ListGraphs implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        ClusterOption cluster;

        @Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "output format (default: ${DEFAULT-VALUE})")
        String format;

        @Override
        public Integer call() throws Exception {
            boolean json = JsonReport.json(format);
            PrintWriter out = spec.commandLine().getOut();
            try (RStore rstore = cluster.connect()) {
                ObjectNode report = JsonReport.header(spec);
                ArrayNode graphs = report.putArray("graphs");
                for (String name : CarafeGraph.list(rstore)) {
                    ObjectNode g = graphs.addObject().put("name", name);
                    try {
                        GraphHeader h = CarafeGraph.header(rstore, name);
                        g.put("state", "complete").put("directed", h.directed()).put("weighted", h.weighted())
                                .put("vertices", h.vertexCount()).put("edges", h.edgeCount()).put("sourceBytes", h.sourceBytes())
                                .put("sourceModified", h.sourceModifiedMillis() == 0 ? null : Instant.ofEpochMilli(h.sourceModifiedMillis()).toString());
                    } catch (GraphStoreException unreadable) {
                        int version = CarafeGraph.formatVersion(rstore, name); // loaded by an older Carafe, or a load that died
                        g.put("state", GraphHeader.reads(version) ? "incomplete" : version < 0 ? "unreadable" : "format-" + version);
                    }
                }
                if (json) {
                    JsonReport.print(report, out);
                } else {
                    out.printf("%-24s %-10s %14s %16s  %s%n", "name", "state", "vertices", "edges", "kind");
                    for (var g : graphs) {
                        boolean complete = g.get("state").asText().equals("complete");
                        out.printf("%-24s %-10s %14s %16s  %s%n", g.get("name").asText(), g.get("state").asText(),
                                complete ? String.format("%,d", g.get("vertices").asLong()) : "-",
                                complete ? String.format("%,d", g.get("edges").asLong()) : "-",
                                complete ? (g.get("directed").asBoolean() ? "directed" : "undirected") + (g.get("weighted").asBoolean() ? ", weighted" : "") : "-");
                    }
                    out.printf("%d graph%s in %s%n", graphs.size(), graphs.size() == 1 ? "" : "s", cluster);
                }
                out.flush();
            }
            return 0;
        }
    }

    @Command(name = "drop", mixinStandardHelpOptions = true, header = "Delete a graph from the cluster (all its namespaces).")
    static final class Drop implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "NAME", description = "the graph's name (carafe graphs list)")
        String name;

        @CommandLine.Mixin
        ClusterOption cluster;

        @Override
        public Integer call() {
            try (RStore rstore = cluster.connect()) {
                CarafeGraph.delete(rstore, name);
            }
            spec.commandLine().getOut().println("dropped graph " + name + " from " + cluster);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }
}

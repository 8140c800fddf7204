package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.graph.VertexLayout;
import io.carafe.pregel.Partitioning;
import io.rstore.RStore;
import io.rstore.cli.JsonReport;
import io.rstore.protocol.NamespaceInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.Arrays;
import java.util.concurrent.Callable;

@Command(name = "stats",
        mixinStandardHelpOptions = true,
        header = "Counts, degree distribution and memory of a graph.")
final class StatsCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @CommandLine.Option(names = {"-w", "--workers"}, defaultValue = "2", description = "show the weighted partitioning for this many workers (default: ${DEFAULT-VALUE})")
    int workers;

    @CommandLine.Option(names = "--partition-weights", paramLabel = "A,B", defaultValue = "1,1", split = ",",
            description = "vertex weight a + b·degree (default: ${DEFAULT-VALUE})")
    double[] partitionWeights;

    @CommandLine.Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "table (for people) or json (default: ${DEFAULT-VALUE})")
    String format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        boolean json = JsonReport.json(format); // checked before the graph is loaded
        if (partitionWeights.length != 2) {
            throw new IllegalArgumentException("--partition-weights takes two numbers, A,B");
        }
        cluster.settings();
        // with --format json the lines for people go nowhere and the report is printed at the end
        PrintWriter out = json ? new PrintWriter(Writer.nullWriter()) : spec.commandLine().getOut();
        ObjectNode report = JsonReport.header(spec);
        try (RStore rstore = cluster.start(); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
            var h = g.graph().header();
            int n = g.graph().vertexCount();
            int[] degrees = new int[n];
            var scan = g.graph().scan(0, n);
            for (int v; (v = scan.nextVertex()) >= 0; ) {
                degrees[v] = scan.degree();
            }
            Arrays.sort(degrees);
            long isolated = Arrays.stream(degrees).filter(d -> d == 0).count();
            out.printf("graph %s: %s, %s%n", g.name(), h.directed() ? "directed" : "undirected (both directions stored)",
                    h.weighted() ? String.format("weights %s to %s", h.minWeight(), h.maxWeight()) : "unweighted");
            out.printf("vertices   %,d%nedges      %,d%n", n, h.edgeCount());
            report.put("graph", g.name()).put("directed", h.directed()).put("weighted", h.weighted()).put("vertices", n).put("edges", h.edgeCount())
                    .put("verticesWithoutOutEdges", isolated);
            if (h.weighted()) {
                report.put("minWeight", h.minWeight()).put("maxWeight", h.maxWeight());
            }
            if (n > 0) {
                report.putObject("outDegree").put("min", degrees[0]).put("median", degrees[n / 2]).put("mean", (double) h.edgeCount() / n)
                        .put("p99", degrees[(int) Math.min(n - 1, (long) Math.ceil(0.99 * n) - 1)]).put("max", degrees[n - 1]);
            }
            if (n > 0) {
                out.printf("out-degree min %d, median %d, mean %.2f, p99 %d, max %d; %,d vertices without out-edges%n",
                        degrees[0], degrees[n / 2], (double) h.edgeCount() / n, degrees[(int) Math.min(n - 1, (long) Math.ceil(0.99 * n) - 1)],
                        degrees[n - 1], isolated);
            }
            long reserved = 0;
            long allocated = 0;
            for (NamespaceInfo ns : rstore.namespaces()) {
                if (ns.name().startsWith("carafe/" + g.name() + "/")) {
                    reserved += ns.reservedBytes();
                    allocated += ns.allocatedBytes();
                    out.printf("  %-40s %,14d bytes%n", ns.name(), ns.allocatedBytes());
                }
            }
            out.printf("RStore memory: %,d bytes in segments, %,d reserved (whole chunks)%n", allocated, reserved);
            report.put("rstoreAllocatedBytes", allocated).put("rstoreReservedBytes", reserved);
            out.printf("per vertex %d bytes (record), per edge %d bytes (target%s)%n", VertexLayout.BYTES,
                    4 + (h.weighted() ? 8 : 0), h.weighted() ? " + weight" : "");
            var partitioning = Partitioning.compute(rstore, g.name(), workers, partitionWeights[0], partitionWeights[1]);
            out.printf("partitioning for %s, weight %s + %s·degree:%n", Output.count(workers, "worker"), partitionWeights[0], partitionWeights[1]);
            long[] edges = new long[workers];
            var again = g.graph().scan(0, n);
            for (int v; (v = again.nextVertex()) >= 0; ) {
                edges[partitioning.partitionOf(v)] += again.degree();
            }
            var partitions = report.putArray("partitions");
            for (int p = 0; p < workers; p++) {
                out.printf("  partition %d: vertices [%,d, %,d) (%,d), %,d edges%n", p, partitioning.start(p), partitioning.end(p),
                        partitioning.end(p) - partitioning.start(p), edges[p]);
                partitions.addObject().put("partition", p).put("firstVertex", partitioning.start(p)).put("endVertex", partitioning.end(p))
                        .put("edges", edges[p]);
            }
            out.flush();
        }
        if (json) {
            JsonReport.print(report, spec.commandLine().getOut());
        }
        return 0;
    }
}

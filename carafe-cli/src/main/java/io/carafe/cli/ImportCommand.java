package io.carafe.cli;

import io.carafe.datasets.GraphResolver;
import io.rstore.cli.JsonReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.util.concurrent.Callable;

@Command(name = "import",
        mixinStandardHelpOptions = true,
        header = "Import an edge list (or a named dataset) into Carafe's graph cache.",
        description = {"Parses a SNAP-style edge list once and writes a binary graph file to the cache directory;",
                "every later command on the same unchanged file with the same options starts from it.",
                "Prints what was read: lines, comments, skipped lines, duplicates, self-loops, vertices,",
                "edges, and whether SNAP's '# Nodes: N Edges: E' header agrees."})
final class ImportCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @CommandLine.Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "table (for people) or json (default: ${DEFAULT-VALUE})")
    String format;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        boolean json = JsonReport.json(format); // checked before anything is read
        GraphResolver.Resolved resolved = GraphResolver.resolve(graph.graph, graph.importOptions(), graph.cacheDir(), System.err);
        try (var file = resolved.imported().file()) {
            var out = spec.commandLine().getOut();
            if (json) {
                var r = resolved.imported().report();
                var report = JsonReport.header(spec);
                report.put("graph", resolved.name()).put("cacheFile", file.path().toString()).put("fromCache", r.fromCache)
                        .put("directed", file.header().directed()).put("weighted", file.header().weighted())
                        .put("vertices", file.header().vertexCount()).put("edges", file.header().edgeCount());
                if (!r.fromCache) { // what parsing found; a graph taken from the cache was not parsed, so these would be zeros that mean nothing
                    report.put("bytes", r.bytes).put("lines", r.lines).put("comments", r.comments).put("blankLines", r.blankLines)
                            .put("skippedLines", r.skippedLines).put("edgeLines", r.edgeLines).put("selfLoops", r.selfLoops)
                            .put("duplicates", r.duplicates).put("parseSeconds", r.parseSeconds).put("buildSeconds", r.buildSeconds)
                            .put("vertexNames", r.vertexNames);
                }
                if (r.headerNodes >= 0) {
                    report.put("headerNodes", r.headerNodes).put("headerEdges", r.headerEdges).put("matchesHeader", r.matchesHeader());
                }
                JsonReport.print(report, out);
                return 0;
            }
            out.print(resolved.imported().report().summary());
            out.printf("graph %s: %,d vertices, %,d edges, %s, %s%ncached at %s%n", resolved.name(), file.header().vertexCount(),
                    file.header().edgeCount(), file.header().directed() ? "directed" : "undirected",
                    file.header().weighted() ? "weighted" : "unweighted", file.path());
            out.flush();
        }
        return 0;
    }
}

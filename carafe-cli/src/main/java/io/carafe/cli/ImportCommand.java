package io.carafe.cli;

import io.carafe.datasets.GraphResolver;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

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

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        GraphResolver.Resolved resolved = GraphResolver.resolve(graph.graph, graph.importOptions(), graph.cacheDir(), System.err);
        try (var file = resolved.imported().file()) {
            var out = spec.commandLine().getOut();
            out.print(resolved.imported().report().summary());
            out.printf("graph %s: %,d vertices, %,d edges, %s, %s%ncached at %s%n", resolved.name(), file.header().vertexCount(),
                    file.header().edgeCount(), file.header().directed() ? "directed" : "undirected",
                    file.header().weighted() ? "weighted" : "unweighted", file.path());
            out.flush();
        }
        return 0;
    }
}

package io.carafe.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** A query from one source: shared by the online commands (dijkstra, bfs). */
final class QueryOptions {

    @Option(names = {"-r", "--source"}, required = true, description = "source vertex (its original id, or its name)")
    String source;

    @Option(names = {"-t", "--target"}, description = "target vertex (its original id, or its name)")
    String target;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "write every vertex's result and predecessor: .tsv, .csv or .txt, optionally .gz")
    Path output;

    @Option(names = {"-v", "--verify"}, description = "check the result against an independent implementation")
    boolean verify;

    @Option(names = {"-n", "--trials"}, paramLabel = "N", defaultValue = "1",
            description = "run the search N times from the source, like gapbs's -n: each trial and min/avg/max are reported (default: ${DEFAULT-VALUE})")
    int trials;

    @Option(names = "--format", paramLabel = "table|json", defaultValue = "table", description = "table (for people) or json (default: ${DEFAULT-VALUE})")
    String format;
}

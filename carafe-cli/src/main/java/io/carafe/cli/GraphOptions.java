package io.carafe.cli;

import io.carafe.datasets.Datasets;
import io.carafe.importer.ImportOptions;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Which graph, and how to import it: shared by every command that reads a graph. */
final class GraphOptions {

    @Option(names = {"-g", "--graph"}, required = true, paramLabel = "NAME|FILE",
            description = "a dataset name (carafe datasets list) or an edge-list file (text or gzip); not gapbs's -g, a generated graph's scale")
    String graph;

    @Option(names = {"-s", "--undirected"}, description = "store both directions of every edge")
    boolean undirected;

    @Option(names = "--weight-column", paramLabel = "K", description = "1-based column holding edge weights (3 for 'src dst w')")
    int weightColumn;

    @Option(names = "--weights", paramLabel = "unit|random|file", description = "unit (every edge weighs 1; the default without --weight-column), random (integers 1-255 from --seed), file (from --weight-column)")
    String weights;

    @Option(names = "--seed", defaultValue = "1", description = "seed of --weights random (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--weight-map", paramLabel = "none|abs|add:X", description = "turn file weights non-negative, e.g. signed ratings: abs, or add:X")
    String weightMap;

    @Option(names = "--duplicates", paramLabel = "collapse|keep", defaultValue = "collapse", description = "parallel edges (default: ${DEFAULT-VALUE}; collapsing keeps the smallest weight)")
    String duplicates;

    @Option(names = "--self-loops", paramLabel = "keep|drop", defaultValue = "keep", description = "edges from a vertex to itself (default: ${DEFAULT-VALUE})")
    String selfLoops;

    @Option(names = "--skip-bad-lines", description = "count and skip malformed lines instead of stopping at the first")
    boolean skipBadLines;

    @Option(names = "--header", description = "the edge list's first line (after comments) names its columns: skipped, and --columns may name them")
    boolean header;

    @Option(names = "--columns", paramLabel = "SRC,DST[,WEIGHT]",
            description = "the columns holding the source, the target and the weight: numbers from 1, or names in the --header line (default: 1,2)")
    String columns;

    @Option(names = "--ids", paramLabel = "auto|integer|string", defaultValue = "auto",
            description = "vertex ids: whole numbers, or names (alice bob) numbered as they first appear; auto: as the first edge line has them"
                    + " (default: ${DEFAULT-VALUE})")
    String ids;

    @Option(names = "--input-format", paramLabel = "auto|edgelist|matrix-market", defaultValue = "auto",
            description = "what the file is; auto: a Matrix Market banner, else an edge list by its name (.txt, .tsv, .csv, .e, .el, .edges,"
                    + " .edgelist, .mtx, optionally .gz, or none; others are refused) (default: ${DEFAULT-VALUE})")
    String inputFormat;

    @Option(names = "--vertices", paramLabel = "FILE", description = "a file listing vertex ids in its first column (isolated vertices too)")
    Path vertices;

    @Option(names = "--replace", description = "with --cluster: replace a different graph of this name loaded there earlier (the same graph is reused)")
    boolean replace;

    @Option(names = "--cache-dir", paramLabel = "DIR", description = "where imported graphs are cached (default: $CARAFE_CACHE_DIR or ~/.cache/carafe/graphs)")
    Path cacheDir;

    ImportOptions importOptions() {
        return importOptions(false);
    }

    /** With {@code weighted}, a graph given without weights gets --weights random (from --seed). */
    ImportOptions importOptions(boolean weighted) {
        if (!duplicates.equals("collapse") && !duplicates.equals("keep")) {
            throw new IllegalArgumentException("--duplicates must be collapse or keep, was '" + duplicates + "'");
        }
        if (!selfLoops.equals("keep") && !selfLoops.equals("drop")) {
            throw new IllegalArgumentException("--self-loops must be keep or drop, was '" + selfLoops + "'");
        }
        String mode = weightsMode(weighted);
        ImportOptions.Columns picked = columns == null ? null : ImportOptions.Columns.parse(columns);
        return new ImportOptions(undirected, weightColumn, mode, seed, weightMap, duplicates.equals("keep"),
                selfLoops.equals("drop"), skipBadLines, vertices, header, picked, ids, inputFormat);
    }

    private String weightsMode(boolean weighted) {
        boolean weightColumnGiven = weightColumn > 0 || columns != null && columns.split(",").length == 3;
        return weights != null ? weights : (weightColumnGiven ? "file" : weighted ? "random" : "unit");
    }

    /** These options as another carafe command takes them (carafe bench runs the kernels' commands). */
    List<String> arguments(boolean weighted) {
        List<String> args = new ArrayList<>(List.of("--graph", graph));
        if (undirected) {
            args.add("--undirected");
        }
        if (weightColumn > 0) {
            args.addAll(List.of("--weight-column", Integer.toString(weightColumn)));
        }
        args.addAll(List.of("--weights", weightsMode(weighted), "--seed", Long.toString(seed)));
        if (weightMap != null) {
            args.addAll(List.of("--weight-map", weightMap));
        }
        args.addAll(List.of("--duplicates", duplicates, "--self-loops", selfLoops));
        if (skipBadLines) {
            args.add("--skip-bad-lines");
        }
        if (header) {
            args.add("--header");
        }
        if (!"auto".equals(ids)) {
            args.addAll(List.of("--ids", ids));
        }
        if (!"auto".equals(inputFormat)) {
            args.addAll(List.of("--input-format", inputFormat));
        }
        if (columns != null) {
            args.addAll(List.of("--columns", columns));
        }
        if (vertices != null) {
            args.addAll(List.of("--vertices", vertices.toString()));
        }
        args.addAll(List.of("--cache-dir", cacheDir().toString()));
        return args;
    }

    Path cacheDir() {
        return cacheDir != null ? cacheDir : Datasets.cacheDir();
    }
}

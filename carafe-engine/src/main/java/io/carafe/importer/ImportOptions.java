package io.carafe.importer;

import java.nio.file.Path;
import java.util.Locale;

/**
 * How an edge list becomes a graph. Defaults: directed, no weights (every edge weighs
 * 1), duplicate edges collapsed, self-loops kept, the first malformed line stops the
 * import.
 *
 * @param undirected   store both directions of every edge ({@code -s})
 * @param weightColumn 1-based column holding the weight (0: none)
 * @param weights      {@code file} (from the weight column), {@code unit} or {@code random}
 * @param seed         seed of {@code random} weights
 * @param weightMap    {@code none}, {@code abs} or {@code add:X}: applied to weights from the file
 * @param keepDuplicates keep parallel edges instead of collapsing them (collapsing keeps the smallest weight)
 * @param dropSelfLoops  drop edges from a vertex to itself
 * @param skipBadLines   count and skip malformed lines instead of stopping
 * @param verticesFile   optional file whose first column lists vertex ids (isolated vertices included)
 */
public record ImportOptions(boolean undirected, int weightColumn, String weights, long seed, String weightMap,
                            boolean keepDuplicates, boolean dropSelfLoops, boolean skipBadLines, Path verticesFile) {

    public ImportOptions {
        weights = weights == null ? (weightColumn > 0 ? "file" : "unit") : weights.toLowerCase(Locale.ROOT);
        weightMap = weightMap == null ? "none" : weightMap.toLowerCase(Locale.ROOT);
        if (weightColumn < 0) {
            throw new IllegalArgumentException("--weight-column counts from 1 (the source is column 1), was " + weightColumn);
        }
        if (weightColumn > 0 && weightColumn < 3) {
            throw new IllegalArgumentException("--weight-column " + weightColumn + " is a vertex column; weights start at column 3");
        }
        switch (weights) {
            case "file" -> {
                if (weightColumn == 0) {
                    throw new IllegalArgumentException("--weights file needs --weight-column K");
                }
            }
            case "unit", "random" -> {
                if (weightColumn > 0) {
                    throw new IllegalArgumentException("--weights " + weights + " and --weight-column exclude each other");
                }
            }
            default -> throw new IllegalArgumentException("--weights must be file, unit or random, was '" + weights + "'");
        }
        if (!weightMap.equals("none") && !weightMap.equals("abs") && !weightMap.startsWith("add:")) {
            throw new IllegalArgumentException("--weight-map must be none, abs or add:X, was '" + weightMap + "'");
        }
        if (weightMap.startsWith("add:")) {
            try {
                Double.parseDouble(weightMap.substring(4));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--weight-map add:X needs a number X, was '" + weightMap + "'");
            }
        }
        if (!weightMap.equals("none") && !weights.equals("file")) {
            throw new IllegalArgumentException("--weight-map applies to weights read from a column (--weight-column K)");
        }
    }

    /** A directed graph without weights, duplicates collapsed, self-loops kept. */
    public static ImportOptions defaults() {
        return new ImportOptions(false, 0, null, 0, null, false, false, false, null);
    }

    public ImportOptions withUndirected(boolean v) {
        return new ImportOptions(v, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile);
    }

    public ImportOptions withWeightColumn(int column) {
        return new ImportOptions(undirected, column, column > 0 ? "file" : null, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile);
    }

    public ImportOptions withRandomWeights(long randomSeed) {
        return new ImportOptions(undirected, 0, "random", randomSeed, "none", keepDuplicates, dropSelfLoops, skipBadLines, verticesFile);
    }

    /** The same options without weights: the topology these options weigh. */
    public ImportOptions withoutWeights() {
        return new ImportOptions(undirected, 0, "unit", 0, "none", keepDuplicates, dropSelfLoops, skipBadLines, verticesFile);
    }

    public ImportOptions withWeightMap(String map) {
        return new ImportOptions(undirected, weightColumn, weights, seed, map, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile);
    }

    public ImportOptions withKeepDuplicates(boolean v) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, v, dropSelfLoops, skipBadLines, verticesFile);
    }

    public ImportOptions withDropSelfLoops(boolean v) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, v, skipBadLines, verticesFile);
    }

    public ImportOptions withSkipBadLines(boolean v) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, v, verticesFile);
    }

    public ImportOptions withVerticesFile(Path file) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, file);
    }

    /** Whether the graph gets a weights array (unit weights are implied, not stored). */
    public boolean weighted() {
        return !weights.equals("unit");
    }

    /** Identifies the options in a cache file, so a cache made with other options is not reused. */
    public long fingerprint() {
        String vertices = verticesFile == null ? "" : verticesFile.toAbsolutePath().normalize().toString();
        // "drop-keeps-vertices": a cache built when dropping self-loops also dropped vertices that had no other edge is not reused
        String key = String.join("|", "v1", Boolean.toString(undirected), Integer.toString(weightColumn), weights,
                weights.equals("random") ? Long.toString(seed) : "", weightMap, Boolean.toString(keepDuplicates),
                dropSelfLoops ? "true|drop-keeps-vertices" : "false",
                Boolean.toString(skipBadLines), vertices);
        long h = 0xcbf29ce484222325L; // FNV-1a, 64 bit
        for (int i = 0; i < key.length(); i++) {
            h = (h ^ key.charAt(i)) * 0x100000001b3L;
        }
        return h;
    }
}

package io.carafe.importer;

import java.nio.file.Path;
import java.util.Arrays;
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
                            boolean keepDuplicates, boolean dropSelfLoops, boolean skipBadLines, Path verticesFile,
                            boolean header, Columns columns, String ids, String format) {

    /** The options of an edge list without a header line, its columns by number. */
    public ImportOptions(boolean undirected, int weightColumn, String weights, long seed, String weightMap,
                         boolean keepDuplicates, boolean dropSelfLoops, boolean skipBadLines, Path verticesFile) {
        this(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, false, null, null, null);
    }

    /** The options of an edge list whose kind of ids is found from its first line. */
    public ImportOptions(boolean undirected, int weightColumn, String weights, long seed, String weightMap,
                         boolean keepDuplicates, boolean dropSelfLoops, boolean skipBadLines, Path verticesFile, boolean header, Columns columns) {
        this(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header, columns, null,
                null);
    }

    /**
     * {@code --columns SRC,DST[,WEIGHT]}: the columns holding the source, the target and
     * (optionally) the weight, each a 1-based number or, with a header line, a name in it.
     */
    public record Columns(String source, String target, String weight) {
        /** Parses {@code SRC,DST[,WEIGHT]}. */
        public static Columns parse(String spec) {
            String[] parts = spec.split(",", -1);
            if (parts.length < 2 || parts.length > 3 || Arrays.stream(parts).anyMatch(p -> p.isBlank())) {
                throw new IllegalArgumentException("ImportOptions.columns takes SRC,DST or SRC,DST,WEIGHT (numbers from 1, or names in the header line), was '"
                        + spec + "'");
            }
            return new Columns(parts[0].strip(), parts[1].strip(), parts.length == 3 ? parts[2].strip() : null);
        }

        /** Whether every column is given by number (else the header line names them). */
        boolean numbered() {
            return number(source) > 0 && number(target) > 0 && (weight == null || number(weight) > 0);
        }

        /** A column given as a 1-based number, or 0 for a name. */
        static int number(String column) {
            return column.matches("[0-9]{1,6}") ? Integer.parseInt(column) : 0;
        }

        @Override
        public String toString() {
            return source + "," + target + (weight == null ? "" : "," + weight);
        }
    }

    public ImportOptions {
        ids = ids == null ? "auto" : ids.toLowerCase(Locale.ROOT);
        format = format == null ? "auto" : format.toLowerCase(Locale.ROOT);
        if (!format.equals("auto") && !format.equals("edgelist") && !format.equals("matrix-market")) {
            throw new IllegalArgumentException("ImportOptions.format must be auto, edgelist or matrix-market, was '" + format + "'");
        }
        if (!ids.equals("auto") && !ids.equals("integer") && !ids.equals("string")) {
            throw new IllegalArgumentException("ImportOptions.ids must be auto, integer or string, was '" + ids + "'");
        }
        if (columns != null) {
            for (String c : Arrays.asList(columns.source(), columns.target(), columns.weight())) {
                if (c != null && c.matches("[0-9]+") && Columns.number(c) < 1) {
                    throw new IllegalArgumentException("ImportOptions.columns counts from 1, was " + columns);
                }
            }
            if (!columns.numbered() && !header) {
                throw new IllegalArgumentException("ImportOptions.columns " + columns + " names columns: they need ImportOptions.header, a header line holding the names");
            }
            if (columns.weight() != null && weightColumn > 0) {
                throw new IllegalArgumentException("ImportOptions.columns " + columns + " names the weight column already; drop ImportOptions.weightColumn");
            }
            if (columns.weight() != null && Columns.number(columns.weight()) > 0) {
                weightColumn = Columns.number(columns.weight()); // a numbered weight column is --weight-column
            }
        }
        boolean weightByName = columns != null && columns.weight() != null && Columns.number(columns.weight()) == 0;
        weights = weights == null ? (weightColumn > 0 || weightByName ? "file" : "unit") : weights.toLowerCase(Locale.ROOT);
        weightMap = weightMap == null ? "none" : weightMap.toLowerCase(Locale.ROOT);
        if (weightColumn < 0) {
            throw new IllegalArgumentException("ImportOptions.weightColumn counts from 1 (the source is column 1), was " + weightColumn);
        }
        if (weightColumn > 0 && weightColumn < 3 && columns == null) {
            throw new IllegalArgumentException("ImportOptions.weightColumn " + weightColumn + " is a vertex column; weights start at column 3");
        }
        switch (weights) {
            case "file" -> {
                if (weightColumn == 0 && !weightByName) {
                    throw new IllegalArgumentException("ImportOptions.weights file needs ImportOptions.weightColumn K (or a weight in ImportOptions.columns)");
                }
            }
            case "unit", "random" -> {
                if (weightColumn > 0 || weightByName) {
                    throw new IllegalArgumentException("ImportOptions.weights " + weights + " and a weight column exclude each other");
                }
            }
            default -> throw new IllegalArgumentException("ImportOptions.weights must be file, unit or random, was '" + weights + "'");
        }
        if (!weightMap.equals("none") && !weightMap.equals("abs") && !weightMap.startsWith("add:")) {
            throw new IllegalArgumentException("ImportOptions.weightMap must be none, abs or add:X, was '" + weightMap + "'");
        }
        if (weightMap.startsWith("add:")) {
            try {
                Double.parseDouble(weightMap.substring(4));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ImportOptions.weightMap add:X needs a number X, was '" + weightMap + "'");
            }
        }
        if (!weightMap.equals("none") && !weights.equals("file")) {
            throw new IllegalArgumentException("ImportOptions.weightMap applies to weights read from a column (ImportOptions.weightColumn K)");
        }
    }

    /** A directed graph without weights, duplicates collapsed, self-loops kept. */
    public static ImportOptions defaults() {
        return new ImportOptions(false, 0, null, 0, null, false, false, false, null);
    }

    public ImportOptions withUndirected(boolean v) {
        return new ImportOptions(v, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header, columns, ids, format);
    }

    public ImportOptions withWeightColumn(int column) {
        return new ImportOptions(undirected, column, column > 0 ? "file" : null, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header, columns, ids, format);
    }

    public ImportOptions withRandomWeights(long randomSeed) {
        return new ImportOptions(undirected, 0, "random", randomSeed, "none", keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header,
                endpointsOnly(), ids, format);
    }

    /** The same options without weights: the topology these options weigh. */
    public ImportOptions withoutWeights() {
        return new ImportOptions(undirected, 0, "unit", 0, "none", keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header, endpointsOnly(), ids, format);
    }

    /** The columns without their weight. */
    private Columns endpointsOnly() {
        return columns == null ? null : new Columns(columns.source(), columns.target(), null);
    }

    public ImportOptions withWeightMap(String map) {
        return new ImportOptions(undirected, weightColumn, weights, seed, map, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header, columns, ids, format);
    }

    public ImportOptions withKeepDuplicates(boolean v) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, v, dropSelfLoops, skipBadLines, verticesFile, header, columns, ids, format);
    }

    public ImportOptions withDropSelfLoops(boolean v) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, v, skipBadLines, verticesFile, header, columns, ids, format);
    }

    public ImportOptions withSkipBadLines(boolean v) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, v, verticesFile, header, columns, ids, format);
    }

    public ImportOptions withVerticesFile(Path file) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, file, header, columns, ids, format);
    }

    /** With a header line (the first line that is not a comment) and, when given, the columns to read. */
    public ImportOptions withColumns(boolean headerLine, Columns which) {
        return new ImportOptions(undirected, which != null && which.weight() != null ? 0 : weightColumn, null, seed, weightMap, keepDuplicates,
                dropSelfLoops, skipBadLines, verticesFile, headerLine, which, ids, format);
    }

    /** Vertex ids as {@code integer}s, {@code string} names, or {@code auto}: names when the first edge line's ids are not whole numbers. */
    public ImportOptions withIds(String kind) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header,
                columns, kind, format);
    }

    /** What the file is: {@code auto} (by its first line and its name), {@code edgelist} or {@code matrix-market}. */
    public ImportOptions withFormat(String kind) {
        return new ImportOptions(undirected, weightColumn, weights, seed, weightMap, keepDuplicates, dropSelfLoops, skipBadLines, verticesFile, header,
                columns, ids, kind);
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
                Boolean.toString(skipBadLines), vertices) + (header || columns != null ? "|header=" + header + "|columns=" + columns : "")
                + (ids.equals("auto") ? "" : "|ids=" + ids) + (format.equals("auto") ? "" : "|format=" + format);
        long h = 0xcbf29ce484222325L; // FNV-1a, 64 bit
        for (int i = 0; i < key.length(); i++) {
            h = (h ^ key.charAt(i)) * 0x100000001b3L;
        }
        return h;
    }
}

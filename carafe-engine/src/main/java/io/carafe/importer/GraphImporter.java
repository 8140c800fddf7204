package io.carafe.importer;

import io.carafe.datasets.Generator;
import io.carafe.graph.EdgeLayout;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.VertexLayout;
import io.carafe.progress.Progress;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Locale;

/**
 * Turns an edge list into a graph file in a cache directory, once: a later import of the
 * same, unchanged source with the same options reuses the file and skips parsing.
 */
public final class GraphImporter {

    /** The imported graph and what the import found. */
    public record Imported(GraphFile file, ImportReport report) {
    }

    private GraphImporter() {
    }

    /** The names of text edge lists: SNAP's, LDBC's, TSV and CSV. */
    static final List<String> EDGE_LIST_SUFFIXES = List.of(".txt", ".tsv", ".csv", ".e", ".el", ".edges", ".edgelist");

    /** Whether the file's name says it is a text edge list (or says nothing: no suffix). */
    static boolean knownSuffix(Path source) {
        String name = source.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".gz")) {
            name = name.substring(0, name.length() - 3);
        }
        int dot = name.lastIndexOf('.');
        return dot <= 0 || EDGE_LIST_SUFFIXES.contains(name.substring(dot));
    }

    /** The cache file for a source and options: the source's name plus a hash of its path and the options. */
    public static Path cacheFile(Path source, ImportOptions options, Path cacheDir) {
        Path absolute = source.toAbsolutePath().normalize();
        long h = options.fingerprint() ^ (absolute.toString().hashCode() * 0x9E3779B97F4A7C15L);
        return cacheDir.resolve(source.getFileName() + "-" + Long.toHexString(h) + ".carafe");
    }

    public static Imported importEdgeList(Path source, ImportOptions options, Path cacheDir, PrintStream progressOut) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(source, BasicFileAttributes.class);
        } catch (IOException e) {
            throw new GraphImportException(source, "cannot read the edge list: " + e.getMessage(), e);
        }
        if (!attributes.isRegularFile()) {
            throw new GraphImportException(source, "is not a file", null);
        }
        long bytes = attributes.size();
        long modified = attributes.lastModifiedTime().toMillis();
        MatrixMarket matrixMarket = options.format().equals("edgelist") ? null : MatrixMarket.of(source);
        if (matrixMarket != null) {
            options = matrixMarket.adjust(source, options);
        } else if (options.format().equals("matrix-market") || options.format().equals("auto") && MatrixMarket.named(source)) {
            throw new GraphImportException(source, "is " + (options.format().equals("auto") ? "named as " : "said to be ") + "a Matrix Market"
                    + " file, but its first line is not a %%MatrixMarket banner ('%%MatrixMarket matrix coordinate FIELD SYMMETRY');"
                    + " if it is an edge list, set ImportOptions.format edgelist", null);
        } else if (options.format().equals("auto") && !knownSuffix(source)) {
            throw new GraphImportException(source, "has a name Carafe does not know for an edge list (it reads " + String.join(", ", EDGE_LIST_SUFFIXES)
                    + " and .mtx, each optionally .gz, or no suffix): set ImportOptions.format edgelist if it is a text edge list", null);
        }
        Path cache = cacheFile(source, options, cacheDir);
        GraphFile cached = Files.exists(cache) ? GraphFile.open(cache) : null;
        if (cached != null) {
            GraphHeader h = cached.header();
            if (h.sourceBytes() == bytes && h.sourceModifiedMillis() == modified && h.optionsFingerprint() == options.fingerprint()) {
                ImportReport report = new ImportReport();
                report.fromCache = true;
                report.vertices = h.vertexCount();
                report.edges = h.edgeCount();
                return new Imported(cached, report);
            }
            cached.close();
        }
        ImportReport report = new ImportReport();
        GraphBuilder builder = new GraphBuilder(options, report);
        VertexNames names = new VertexNames(); // one kind of id for the vertex file and the edge list
        long start = System.nanoTime();
        if (options.verticesFile() != null) {
            new EdgeListParser(options.verticesFile(), options, report, null, true, null, names).parse(builder);
        }
        try (Progress progress = progressOut == null ? null : Progress.start(progressOut, "importing " + source.getFileName(), bytes, " MB", 1 << 20)) {
            new EdgeListParser(source, options, report, progress, false, matrixMarket, names).parse(builder);
        }
        report.vertexNames = Boolean.TRUE.equals(names.named);
        report.parseSeconds = (System.nanoTime() - start) / 1e9;
        checkUnchanged(source, bytes, modified);
        if (report.edgeLines == 0 && report.vertices == 0 && builder.isEmpty()) {
            throw new GraphImportException(source, "holds no edges (" + report.lines + " lines read); is it an edge list?", null);
        }
        Path namesFile = VertexNames.beside(cache);
        try {
            if (report.vertexNames) { // the names first: a graph file is never there without the names its ids stand for
                Files.createDirectories(cacheDir);
                names.write(namesFile);
            } else {
                Files.deleteIfExists(namesFile);
            }
        } catch (IOException e) {
            throw new GraphImportException(cache, "cannot write the vertex names beside the cached graph: " + e.getMessage(), e);
        }
        try (Progress building = progressOut == null ? null
                : Progress.start(progressOut, "building the graph of " + source.getFileName(), GraphBuilder.STEPS, " steps", 1)) {
            builder.write(cache, bytes, modified, building);
        } catch (RuntimeException e) {
            try {
                Files.deleteIfExists(namesFile); // nothing is left behind by a failed build
            } catch (IOException ignored) {
                // reporting the build's failure
            }
            throw e;
        }
        GraphFile file = GraphFile.open(cache);
        if (file == null) {
            throw new GraphImportException(cache, "the graph file just written cannot be read back", null);
        }
        return new Imported(file, report);
    }

    /** A file that changed while it was read gave a graph that matches neither version: an error, not a result. */
    private static void checkUnchanged(Path source, long bytes, long modified) {
        try {
            BasicFileAttributes now = Files.readAttributes(source, BasicFileAttributes.class);
            if (now.size() != bytes || now.lastModifiedTime().toMillis() != modified) {
                throw new GraphImportException(source, "changed while it was read (" + bytes + " bytes when the import began, " + now.size()
                        + " now); import it again once it is complete", null);
            }
        } catch (IOException e) {
            throw new GraphImportException(source, "disappeared while it was read: " + e.getMessage(), e);
        }
    }

    /**
     * The graph of {@code topology} with random weights by {@code options} (a function of each
     * edge's original ids, as an import draws them), written to {@code cache}: the CSR as it is,
     * plus a weights array.
     */
    static Imported withRandomWeights(GraphFile topology, ImportOptions options, Path cache, PrintStream progressOut) {
        long start = System.nanoTime();
        GraphHeader t = topology.header();
        int n = (int) t.vertexCount();
        long m = t.edgeCount();
        if (m > Integer.MAX_VALUE - 8) {
            throw new GraphImportException(cache, m + " edges: more than one weights array holds", null);
        }
        MemorySegment records = topology.vertices();
        MemorySegment targets = topology.edges();
        long[] originalIds = new long[n];
        long[] offsets = new long[n + 1];
        for (int v = 0; v < n; v++) {
            originalIds[v] = VertexLayout.originalId(records, v);
            offsets[v] = VertexLayout.firstEdge(records, v);
        }
        offsets[n] = m;
        int[] adjacency = new int[(int) m];
        MemorySegment.copy(targets, ValueLayout.JAVA_INT_UNALIGNED, 0, adjacency, 0, (int) m);
        double[] weights = new double[(int) m];
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int v = 0; v < n; v++) {
            for (long e = offsets[v]; e < offsets[v + 1]; e++) {
                double w = GraphBuilder.randomWeight(options.seed(), options.undirected(), originalIds[v], originalIds[adjacency[(int) e]]);
                weights[(int) e] = w;
                min = Math.min(min, w);
                max = Math.max(max, w);
            }
        }
        GraphHeader header = new GraphHeader(GraphHeader.COMPLETE, t.directed(), true, EdgeLayout.weightBytes(weights, m), n, m,
                m == 0 ? 0 : min, m == 0 ? 0 : max, 0, 0, -1,
                t.sourceBytes(), t.sourceModifiedMillis(), options.fingerprint(), -1, -1, -1);
        GraphBuilder.writeFile(cache, header, originalIds, offsets, adjacency, weights);
        GraphFile file = GraphFile.open(cache);
        if (file == null) {
            throw new GraphImportException(cache, "the graph file just written cannot be read back", null);
        }
        ImportReport report = new ImportReport();
        report.weightsDrawn = true;
        report.vertices = n;
        report.edges = m;
        report.buildSeconds = (System.nanoTime() - start) / 1e9;
        return new Imported(file, report);
    }

    /**
     * A generated graph ({@code rmat} or {@code uniform}), made once and cached like an
     * import: the same kind, counts, seed and options give the same file.
     */
    public static Imported generate(String kind, long vertices, long edges, long seed, ImportOptions options, Path cacheDir,
                                    PrintStream progressOut) {
        if (!kind.equals("rmat") && !kind.equals("uniform") && !kind.equals("grid")) {
            throw new IllegalArgumentException("generator kind must be rmat, uniform or grid, was '" + kind + "'");
        }
        if (kind.equals("grid") && edges != Generator.gridEdges(vertices)) {
            throw new IllegalArgumentException("a grid of " + vertices + " vertices has " + Generator.gridEdges(vertices)
                    + " edges (each neighbouring pair both ways), not " + edges);
        }
        if (options.weightColumn() > 0) {
            throw new IllegalArgumentException("a generated graph has no weight column; use ImportOptions.weights unit or random");
        }
        Path cache = cacheDir.resolve("generated-" + kind + "-" + vertices + "-" + edges + "-" + seed + "-"
                + Long.toHexString(options.fingerprint()) + ".carafe");
        GraphFile cached = Files.exists(cache) ? GraphFile.open(cache) : null;
        if (cached != null) {
            ImportReport report = new ImportReport();
            report.fromCache = true;
            report.vertices = cached.header().vertexCount();
            report.edges = cached.header().edgeCount();
            return new Imported(cached, report);
        }
        if (options.weights().equals("random")) {
            // the weights are a function of each edge: drawn for the cached topology, not by generating and building again
            Imported topology = generate(kind, vertices, edges, seed, options.withoutWeights(), cacheDir, progressOut);
            try (GraphFile unweighted = topology.file()) {
                return withRandomWeights(unweighted, options, cache, progressOut);
            }
        }
        if (progressOut != null) {
            progressOut.printf("generating %s graph: %,d vertices, %,d edges, seed %d (once; cached in %s)%n", kind, vertices, edges, seed, cacheDir);
        }
        ImportReport report = new ImportReport();
        GraphBuilder builder = new GraphBuilder(options, report);
        long start = System.nanoTime();
        switch (kind) {
            case "rmat" -> Generator.rmat(builder, vertices, edges, seed);
            case "uniform" -> Generator.uniform(builder, vertices, edges, seed);
            default -> Generator.grid(builder, vertices);
        }
        report.generated = true;
        report.edgeLines = edges;
        report.parseSeconds = (System.nanoTime() - start) / 1e9;
        try (Progress building = progressOut == null ? null
                : Progress.start(progressOut, "building the " + kind + " graph", GraphBuilder.STEPS, " steps", 1)) {
            builder.write(cache, 0, 0, building);
        }
        GraphFile file = GraphFile.open(cache);
        if (file == null) {
            throw new GraphImportException(cache, "the graph file just written cannot be read back", null);
        }
        return new Imported(file, report);
    }
}

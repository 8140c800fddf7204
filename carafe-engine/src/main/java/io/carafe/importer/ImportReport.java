package io.carafe.importer;

/**
 * What an import found. Counts are of the input (lines, edge lines, self-loop lines) and
 * of the graph built (vertices, stored edges, and duplicates: stored edges removed because
 * an edge with the same source and target was already there — with --undirected, an input
 * listing both directions has every edge once as a duplicate); header counts are SNAP's
 * {@code # Nodes: N Edges: E}, or -1 when the file has none.
 */
public final class ImportReport {
    public long bytes;
    public long lines;
    public long comments;
    public long blankLines;
    public long skippedLines;
    public long edgeLines;
    public long selfLoops;
    public long duplicates;
    public long vertices;
    public long edges;
    public long headerNodes = -1;
    public long headerEdges = -1;
    public double parseSeconds;
    public double buildSeconds;
    public boolean fromCache;
    public boolean generated;
    /** Random weights drawn for a cached topology (nothing parsed, generated or built). */
    public boolean weightsDrawn;
    public String firstSkipped;
    /** Whether the ids were names (kept beside the cached graph, {@link VertexNames}). */
    public boolean vertexNames;
    /** The header line skipped as column names (--header), or null. */
    public String headerLine;
    /** A Matrix Market file's banner and size, in words; null for an edge list. */
    public String matrixMarket;

    /** True when the file had a header and it agrees with the vertices and edge lines found. */
    public boolean matchesHeader() {
        return headerNodes >= 0 && headerNodes == vertices && headerEdges == edgeLines;
    }

    /** One paragraph for people. */
    public String summary() {
        if (fromCache) {
            return String.format("loaded from cache: %,d vertices, %,d edges", vertices, edges);
        }
        if (weightsDrawn) {
            return String.format("random weights drawn for the cached topology in %.2f s: %,d vertices, %,d edges%n", buildSeconds, vertices, edges);
        }
        StringBuilder s = new StringBuilder();
        if (generated) {
            s.append(String.format("generated %,d edges in %.2f s%n", edgeLines, parseSeconds));
        } else {
            s.append(String.format("read %,d lines (%,d bytes) in %.2f s: %,d edge lines, %,d comments, %,d blank, %,d skipped%n",
                    lines, bytes, parseSeconds, edgeLines, comments, blankLines, skippedLines));
        }
        s.append(String.format("built in %.2f s: %,d vertices, %,d edges stored; %,d duplicate edges collapsed, %,d self-loops%n",
                buildSeconds, vertices, edges, duplicates, selfLoops));
        if (matrixMarket != null) {
            s.append(matrixMarket).append('\n');
        }
        if (vertexNames) {
            s.append(String.format("vertex ids are names: %,d, numbered as they first appear%n", vertices));
        }
        if (headerLine != null) {
            s.append("header line: ").append(GraphImportException.printable(headerLine)).append('\n');
        }
        if (headerNodes >= 0) {
            s.append(String.format("header says %,d nodes and %,d edges: %s%n", headerNodes, headerEdges,
                    matchesHeader() ? "matches" : "DIFFERS from what was found (" + vertices + " vertices, " + edgeLines + " edge lines)"));
        }
        if (firstSkipped != null) {
            s.append("first skipped line: ").append(firstSkipped).append('\n');
        }
        return s.toString();
    }
}

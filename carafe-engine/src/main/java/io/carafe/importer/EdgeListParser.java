package io.carafe.importer;

import io.carafe.progress.Progress;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Reads an edge list (plain or gzip, found by its magic bytes) straight from bytes: no
 * String or object per line. Accepts tab, space or comma separated columns, CRLF, blank
 * lines, leading whitespace, {@code #} and {@code %} comment lines (SNAP's
 * {@code # Nodes: N Edges: E} header is read), ids from 0 to 2^63−1, and extra columns.
 */
final class EdgeListParser {

    /** Receives each edge line's fields. */
    interface Sink {
        void edge(long source, long target, double weight);
    }

    private static final int BUFFER = 1 << 22;
    private static final long MAX_LINE = 1 << 20;

    private final Path file;
    private final ImportOptions options;
    private final ImportReport report;
    private final Progress progress;
    private final boolean vertexList;
    private long lineNumber;
    private String bad;
    private final MatrixMarket matrixMarket; // null: an edge list
    private long declaredVertices = -1;    // a Matrix Market file's size line: its rows, then
    private boolean headerRead;            // with ImportOptions.header: the header line is behind us
    private boolean firstDataLine = true;  // a failure on the first data line may be a header line
    private int sourceColumn = 1;
    private int targetColumn = 2;
    private int weightColumn;              // 0: none
    private final VertexNames names;       // names.named: whether ids are names; null until the first data line says
    private byte[] pending;                // auto: a first data line of names, held until the next says whether it was a header
    private long pendingLine;
    private long declaredEntries = -1;     // the entry lines that must follow

    /** {@code vertexList}: a vertex file, whose lines hold one id (first column) and maybe more. */
    EdgeListParser(Path file, ImportOptions options, ImportReport report, Progress progress, boolean vertexList) {
        this(file, options, report, progress, vertexList, null);
    }

    /** {@code matrixMarket}: the file's banner, when it is a Matrix Market file ({@link MatrixMarket#of}). */
    EdgeListParser(Path file, ImportOptions options, ImportReport report, Progress progress, boolean vertexList, MatrixMarket matrixMarket) {
        this(file, options, report, progress, vertexList, matrixMarket, new VertexNames());
    }

    /** {@code names}: shared by the parsers of one import (vertex file and edge list), which use one kind of id. */
    EdgeListParser(Path file, ImportOptions options, ImportReport report, Progress progress, boolean vertexList, MatrixMarket matrixMarket,
                   VertexNames names) {
        this.file = file;
        this.options = options;
        this.report = report;
        this.progress = progress;
        this.vertexList = vertexList;
        this.matrixMarket = matrixMarket;
        this.names = names;
        if (names.named == null && !options.ids().equals("auto")) {
            names.named = options.ids().equals("string");
        }
        if (matrixMarket != null) {
            if (Boolean.TRUE.equals(names.named)) {
                throw new GraphImportException(file, "is a Matrix Market file, whose rows are numbers: ImportOptions.ids string does not apply", null);
            }
            names.named = false;
        }
        this.weightColumn = options.weightColumn();
        ImportOptions.Columns columns = options.columns();
        if (columns != null && columns.numbered() && !vertexList) {
            sourceColumn = ImportOptions.Columns.number(columns.source());
            targetColumn = ImportOptions.Columns.number(columns.target());
        }
    }

    void parse(Sink sink) {
        try (CountingStream counted = new CountingStream(Files.newInputStream(file));
             InputStream in = open(counted)) {
            byte[] buf = new byte[BUFFER];
            int len = 0;
            long started = System.nanoTime();
            long lastProgress = started;
            while (true) {
                int n = in.read(buf, len, buf.length - len);
                if (n < 0) {
                    break;
                }
                len += n;
                int start = 0;
                for (int i = start; i < len; i++) {
                    if (buf[i] == '\n') {
                        line(buf, start, i, sink);
                        start = i + 1;
                    }
                }
                if (start == 0 && len == buf.length) {
                    lineNumber++;
                    throw new GraphImportException(file, lineNumber, null, "line is longer than " + MAX_LINE * 4 + " bytes; is this an edge list?");
                }
                System.arraycopy(buf, start, buf, 0, len - start);
                len -= start;
                if (progress != null && System.nanoTime() - lastProgress > 200_000_000L) { // the clock read once per 1 MiB buffer
                    lastProgress = System.nanoTime();
                    double seconds = (lastProgress - started) / 1e9;
                    progress.update(counted.count, String.format("%,.1f M edges/s", report.edgeLines / seconds / 1e6));
                }
            }
            if (len > 0) {
                line(buf, 0, len, sink);
            }
            if (pending != null) { // the only data line held names: so does the file
                names.named = true;
                flushPending(sink);
            }
            report.bytes += counted.count;
            if (matrixMarket != null) {
                checkEntries();
            }
        } catch (IOException e) {
            throw new GraphImportException(file, "cannot read the file: " + e.getMessage(), e);
        }
    }

    static InputStream open(InputStream raw) throws IOException {
        BufferedInputStream in = new BufferedInputStream(raw, 1 << 16);
        in.mark(2);
        int b1 = in.read();
        int b2 = in.read();
        in.reset();
        if (b1 == 0x1f && b2 == 0x8b) {
            return new GZIPInputStream(in, 1 << 16);
        }
        return in;
    }

    private void line(byte[] b, int from, int to, Sink sink) {
        lineNumber++;
        report.lines++;
        if (to > from && b[to - 1] == '\r') {
            to--;
        }
        int i = from;
        while (i < to && (b[i] == ' ' || b[i] == '\t')) {
            i++;
        }
        if (i == to) {
            report.blankLines++;
            return;
        }
        if (b[i] == '#' || b[i] == '%') {
            report.comments++;
            header(new String(b, i, to - i, StandardCharsets.UTF_8));
            return;
        }
        if (matrixMarket != null && declaredVertices < 0) {
            sizeLine(new String(b, i, to - i, StandardCharsets.UTF_8), sink);
            return;
        }
        if (options.header() && !headerRead && !vertexList) {
            headerLine(new String(b, i, to - i, StandardCharsets.UTF_8));
            return;
        }
        if (names.named == null) { // auto, and nothing decided yet: do this line's ids read as numbers?
            boolean numbers = idsAreNumbers(b, i, to);
            if (pending == null && !numbers) {
                pending = Arrays.copyOfRange(b, from, to); // a header line, or the first edge of names: the next line tells
                pendingLine = lineNumber;
                return;
            }
            if (pending != null && numbers) {
                String text = new String(pending, StandardCharsets.UTF_8);
                String why = "the first line that is not a comment holds no vertex ids, and the lines after it do: if it is a header line,"
                        + " set ImportOptions.header (and ImportOptions.columns SRC,DST[,WEIGHT] to pick columns by their names in it)";
                if (!options.skipBadLines()) {
                    throw new GraphImportException(file, pendingLine, text, why);
                }
                report.skippedLines++;
                report.firstSkipped = file.getFileName() + ":" + pendingLine + ": " + why + ": " + text;
                pending = null;
            }
            names.named = !numbers;
            flushPending(sink);
        }
        data(b, from, to, i, lineNumber, sink);
    }

    /** The held first data line, read now that the kind of ids is known. */
    private void flushPending(Sink sink) {
        if (pending != null) {
            byte[] held = pending;
            pending = null;
            int i = 0;
            while (i < held.length && (held[i] == ' ' || held[i] == '\t')) {
                i++;
            }
            data(held, 0, held.length, i, pendingLine, sink);
        }
    }

    /** Whether the id columns of the line {@code [i, to)} are whole numbers. */
    private boolean idsAreNumbers(byte[] b, int i, int to) {
        int column = 0;
        while (i < to) {
            int start = i;
            i = tokenEnd(b, i, to);
            column++;
            if (vertexList ? column == 1 : column == sourceColumn || column == targetColumn) {
                if (i == start) { // digits alone are a number, if a too large one (reported as such)
                    return false;
                }
                for (int k = start; k < i; k++) {
                    if (b[k] < '0' || b[k] > '9') {
                        return false;
                    }
                }
            }
            while (i < to && separator(b[i])) {
                i++;
            }
        }
        return true;
    }

    /** A data line, from its first non-blank byte {@code i}: its edge (or vertex) to the sink, or why it is bad. */
    private void data(byte[] b, int from, int to, int i, long lineNumber, Sink sink) {
        boolean named = Boolean.TRUE.equals(names.named);
        bad = null;
        long source = -1;
        long target = -1;
        double weight = Double.NaN;
        int column = 0;
        while (i < to && bad == null) {
            int start = i;
            i = tokenEnd(b, i, to);
            column++;
            if (vertexList ? column == 1 : column == sourceColumn) {
                source = named ? name(b, start, i) : id(b, start, i);
            } else if (column == targetColumn && !vertexList) {
                target = named ? name(b, start, i) : id(b, start, i);
            } else if (column == weightColumn && !vertexList) {
                weight = weight(b, start, i);
            }
            while (i < to && separator(b[i])) {
                i++;
            }
        }
        if (bad == null && !vertexList && column < Math.max(sourceColumn, targetColumn)) {
            bad = column < 2 ? "expected a source and a target column, found " + column + " column"
                    : "the source and target are columns " + sourceColumn + " and " + targetColumn + " but the line has " + column + " columns";
        }
        if (bad == null && !vertexList && weightColumn > column) {
            bad = (options.columns() == null || options.columns().weight() == null ? "ImportOptions.weightColumn " + weightColumn
                    : "ImportOptions.columns " + options.columns() + " puts the weight in column " + weightColumn) + " but the line has " + column + " columns";
        }
        if (bad != null && firstDataLine && !vertexList && !options.header() && !options.skipBadLines() && bad.contains("is not a vertex id")) {
            String text = new String(b, from, to - from, StandardCharsets.UTF_8);
            throw new GraphImportException(file, lineNumber, text, "the first line that is not a comment holds no vertex ids: if it is a header"
                    + " line, set ImportOptions.header (and ImportOptions.columns SRC,DST[,WEIGHT] to pick columns by their names in it); if the vertices are named,"
                    + " import with ImportOptions.ids string");
        }
        firstDataLine = false;
        if (bad == null && matrixMarket != null) {
            bad = outsideMatrix(source, target);
        }
        if (bad != null) {
            String text = new String(b, from, to - from, StandardCharsets.UTF_8);
            if (!options.skipBadLines()) {
                throw new GraphImportException(file, lineNumber, text, bad);
            }
            report.skippedLines++;
            if (report.firstSkipped == null) {
                report.firstSkipped = file.getFileName() + ":" + lineNumber + ": " + bad + ": " + text;
            }
            return;
        }
        if (!vertexList) {
            report.edgeLines++;
        }
        sink.edge(source, target, weight);
    }

    /** Where the column starting at {@code i} ends: at a separator, or, for one in double quotes, after the closing quote. */
    private static int tokenEnd(byte[] b, int i, int to) {
        if (b[i] == '"') {
            int close = i + 1;
            while (close < to && b[close] != '"') {
                close++;
            }
            if (close < to) {
                return close + 1;
            }
        }
        while (i < to && !separator(b[i])) {
            i++;
        }
        return i;
    }

    private static boolean separator(byte c) {
        return c == ' ' || c == '\t' || c == ',';
    }

    /** A vertex named by the token (surrounding double quotes dropped): its number in {@link #names}. */
    private long name(byte[] b, int from, int to) {
        if (to - from >= 2 && b[from] == '"' && b[to - 1] == '"') {
            from++;
            to--;
        }
        if (from == to) {
            bad = "empty vertex name";
            return -1;
        }
        return names.id(new String(b, from, to - from, StandardCharsets.UTF_8));
    }

    /** A vertex id: digits only, at most 2^63−1. Sets {@link #bad} otherwise. */
    private long id(byte[] b, int from, int to) {
        if (from == to) {
            bad = "empty vertex id";
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                bad = "'" + GraphImportException.printable(new String(b, from, to - from, StandardCharsets.UTF_8))
                        + "' is not a vertex id (a whole number from 0 to 2^63-1; to use names as ids, import with ImportOptions.ids string)";
                return -1;
            }
            if (v > (Long.MAX_VALUE - d) / 10) {
                bad = "vertex id " + GraphImportException.printable(new String(b, from, to - from, StandardCharsets.UTF_8)) + " is larger than 2^63-1";
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }

    /** A weight: integers exactly on a fast path, anything else through Double.parseDouble. */
    private double weight(byte[] b, int from, int to) {
        int i = from;
        boolean negative = i < to && b[i] == '-';
        if (negative || (i < to && b[i] == '+')) {
            i++;
        }
        long v = 0;
        int digits = 0;
        while (i < to && b[i] >= '0' && b[i] <= '9' && digits < 15) {
            v = v * 10 + (b[i] - '0');
            i++;
            digits++;
        }
        if (i == to && digits > 0) {
            return negative ? -v : v;
        }
        String text = new String(b, from, to - from, StandardCharsets.UTF_8);
        try {
            double w = Double.parseDouble(text);
            if (Double.isFinite(w)) {
                return w;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        bad = "weight '" + GraphImportException.printable(text) + "' is not a finite number";
        return Double.NaN;
    }

    /**
     * The header line: column names, split as data lines are (surrounding quotes dropped).
     * Columns given by name in {@code --columns} are found here; a name it lacks is an error
     * that lists the names it has.
     */
    private void headerLine(String text) {
        headerRead = true;
        report.headerLine = text;
        ImportOptions.Columns columns = options.columns();
        if (columns == null || columns.numbered()) {
            return;
        }
        List<String> names = new ArrayList<>();
        for (String name : text.split("[ \\t,]+")) {
            if (!name.isEmpty()) {
                names.add(name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"") ? name.substring(1, name.length() - 1) : name);
            }
        }
        sourceColumn = column(columns.source(), names, text);
        targetColumn = column(columns.target(), names, text);
        if (columns.weight() != null) {
            weightColumn = column(columns.weight(), names, text);
        }
    }

    /** A column of {@code --columns}: its number, or the 1-based place of its name in the header line. */
    private int column(String column, List<String> names, String header) {
        int number = ImportOptions.Columns.number(column);
        if (number > 0) {
            return number;
        }
        int at = names.indexOf(column);
        if (at < 0) {
            throw new GraphImportException(file, lineNumber, header, "ImportOptions.columns names '" + column + "', which the header line does not;"
                    + " it names " + names);
        }
        return at + 1;
    }

    /**
     * A Matrix Market size line, {@code ROWS COLUMNS ENTRIES}: never an edge. The matrix
     * must be square; vertices 1..ROWS all exist, isolated or not.
     */
    private void sizeLine(String text, Sink sink) {
        String[] words = text.trim().split("[\\s,]+");
        long[] size = new long[3];
        try {
            if (words.length != 3) {
                throw new NumberFormatException();
            }
            for (int k = 0; k < 3; k++) {
                size[k] = Long.parseLong(words[k]);
                if (size[k] < 0) {
                    throw new NumberFormatException();
                }
            }
        } catch (NumberFormatException e) {
            throw new GraphImportException(file, lineNumber, text, "a Matrix Market size line holds ROWS COLUMNS ENTRIES, three whole numbers");
        }
        if (size[0] != size[1]) {
            throw new GraphImportException(file, lineNumber, text, "a graph's adjacency matrix is square; this one is " + size[0] + " x " + size[1]);
        }
        if (size[0] > Integer.MAX_VALUE - 8) {
            throw new GraphImportException(file, lineNumber, text, size[0] + " vertices: more than a graph here holds");
        }
        declaredVertices = size[0];
        declaredEntries = size[2];
        report.matrixMarket = String.format("Matrix Market, %s %s: %,d x %,d, %,d entries%s", matrixMarket.field(),
                matrixMarket.symmetric() ? "symmetric" : "general", size[0], size[1], size[2],
                matrixMarket.symmetric() ? " (each stored both ways: undirected)" : "");
        for (long v = 1; v <= declaredVertices; v++) {
            sink.edge(v, -1, Double.NaN); // as a vertex file's line
        }
    }

    /** Null if both ends are rows of the matrix (1..ROWS), else why not. */
    private String outsideMatrix(long source, long target) {
        if (source < 1 || source > declaredVertices || target < 1 || target > declaredVertices) {
            return "entry (" + source + ", " + target + ") lies outside the " + declaredVertices + " x " + declaredVertices + " matrix the size line declares";
        }
        return null;
    }

    /** A Matrix Market file ends after exactly the entries its size line declares. */
    private void checkEntries() {
        if (declaredVertices < 0) {
            throw new GraphImportException(file, "is a Matrix Market file without its size line (ROWS COLUMNS ENTRIES after the banner)", null);
        }
        if (report.edgeLines + report.skippedLines != declaredEntries) {
            throw new GraphImportException(file, "declares " + declaredEntries + " entries in its size line but holds "
                    + (report.edgeLines + report.skippedLines) + "; it is truncated or was written wrong", null);
        }
    }

    /** SNAP's "# Nodes: 7115 Edges: 103689". */
    private void header(String comment) {
        long nodes = numberAfter(comment, "Nodes:");
        long edges = numberAfter(comment, "Edges:");
        if (nodes >= 0 && edges >= 0) {
            report.headerNodes = nodes;
            report.headerEdges = edges;
        }
    }

    private static long numberAfter(String text, String label) {
        int at = text.indexOf(label);
        if (at < 0) {
            return -1;
        }
        int i = at + label.length();
        while (i < text.length() && text.charAt(i) == ' ') {
            i++;
        }
        int start = i;
        while (i < text.length() && Character.isDigit(text.charAt(i))) {
            i++;
        }
        return i > start && i - start < 19 ? Long.parseLong(text.substring(start, i)) : -1;
    }

    /** Counts the raw (possibly compressed) bytes consumed, for progress. */
    private static final class CountingStream extends FilterInputStream {
        long count;

        CountingStream(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }
}

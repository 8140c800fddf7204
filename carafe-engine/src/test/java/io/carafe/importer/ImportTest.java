package io.carafe.importer;

import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImportTest {
    @TempDir
    Path dir;

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private GraphImporter.Imported load(Path file, ImportOptions options) {
        return GraphImporter.importEdgeList(file, options, dir.resolve("cache"), null);
    }

    /** Original id and sorted (target original id, weight) pairs of every vertex. */
    static List<String> adjacency(GraphFile g) {
        List<String> out = new ArrayList<>();
        long n = g.header().vertexCount();
        for (long v = 0; v < n; v++) {
            StringBuilder s = new StringBuilder().append(VertexLayout.originalId(g.vertices(), v)).append(':');
            long first = VertexLayout.firstEdge(g.vertices(), v);
            for (long e = first; e < first + VertexLayout.degree(g.vertices(), v); e++) {
                s.append(' ').append(VertexLayout.originalId(g.vertices(), EdgeLayout.target(g.edges(), e)));
                if (g.weights() != null) {
                    s.append('/').append(g.header().weight(g.weights(), e));
                }
            }
            out.add(s.toString());
        }
        return out;
    }

    @Test
    void shouldReadSnapTextWithCommentsCrlfBlankLinesAndMixedSeparators() throws IOException {
        Path file = write("g.txt", "# Directed graph\r\n# Nodes: 5 Edges: 7\r\n"
                + "30\t1412\r\n  30 7\r\n\r\n1412,30\r\n\t7\t\t30\r\n9223372036854775807 7\r\n7 7\r\n30 7\r\n");
        try (GraphFile g = load(file, ImportOptions.defaults()).file()) {
            ImportReport r = GraphImporter.importEdgeList(file, ImportOptions.defaults(), dir.resolve("other"), null).report();
            assertEquals(10, r.lines);
            assertEquals(2, r.comments);
            assertEquals(1, r.blankLines);
            assertEquals(7, r.edgeLines);
            assertEquals(1, r.selfLoops);
            assertEquals(1, r.duplicates, "30 7 twice collapses");
            assertEquals(4, r.vertices);
            assertEquals(6, r.edges);
            assertEquals(5, r.headerNodes);
            assertFalse(r.matchesHeader(), "the header claims 5 nodes, 4 were found");
            assertTrue(r.summary().contains("DIFFERS"), r.summary());
            // dense ids follow the original ids; lists are sorted; the self-loop is kept
            assertEquals(List.of("7: 7 30", "30: 7 1412", "1412: 30", "9223372036854775807: 7"), adjacency(g));
            assertTrue(g.header().directed());
            assertFalse(g.header().weighted());
        }
    }

    /**
     * Matrix Market: the banner and size line are not edges; general is directed, symmetric
     * undirected; vertices are the matrix's rows, isolated ones too; values are weights with
     * --weight-column 3. The same graph as its edge-list twin with a vertex file.
     */
    @Test
    void shouldReadMatrixMarketAsTheGraphItsEdgeListTwinMakes() throws IOException {
        Path general = write("g.mtx", "%%MatrixMarket matrix coordinate real general\n% a comment\n%\n5 5 4\n1 2 0.5\n2 3 2\n3 1 1.5\n3 3 4\n");
        Path twin = write("g.txt", "1 2 0.5\n2 3 2\n3 1 1.5\n3 3 4\n");
        Path rows = write("rows.txt", "1\n2\n3\n4\n5\n");
        ImportOptions weighted = ImportOptions.defaults().withWeightColumn(3);
        try (GraphFile g = load(general, weighted).file(); GraphFile t = load(twin, weighted.withVerticesFile(rows)).file()) {
            assertEquals(List.of("1: 2/0.5", "2: 3/2.0", "3: 1/1.5 3/4.0", "4:", "5:"), adjacency(g), "5 rows: 4 and 5 isolated, no phantom edge");
            assertEquals(adjacency(t), adjacency(g));
            assertTrue(g.header().directed());
        }
        Path symmetric = write("s.mtx.gz", "");
        try (java.io.OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(symmetric))) {
            out.write("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 2\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        try (GraphFile g = load(symmetric, ImportOptions.defaults()).file()) {
            assertEquals(List.of("1: 2", "2: 1 3", "3: 2"), adjacency(g), "each entry both ways");
            assertFalse(g.header().directed());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "%%MatrixMarket matrix array real general\\n2 2\\n1\\n2\\n3\\n4\\n| lists every cell, not edges",
            "%%MatrixMarket matrix coordinate complex general\\n2 2 1\\n1 2 1 0\\n| field 'complex' cannot be edge weights",
            "%%MatrixMarket matrix coordinate real skew-symmetric\\n2 2 1\\n2 1 1\\n| 'skew-symmetric' matrix is not a graph's adjacency matrix",
            "%%MatrixMarket matrix coordinate pattern general\\n2 3 1\\n1 2\\n| square; this one is 2 x 3",
            "%%MatrixMarket matrix coordinate pattern general\\n3 3 3\\n1 2\\n2 3\\n| declares 3 entries in its size line but holds 2",
            "%%MatrixMarket matrix coordinate pattern general\\n3 3 1\\n1 4\\n| entry (1, 4) lies outside the 3 x 3 matrix",
            "%%MatrixMarket matrix coordinate pattern general\\n3 three 1\\n1 2\\n| size line holds ROWS COLUMNS ENTRIES",
            "%%MatrixMarket tensor coordinate pattern general\\n3 3 1\\n1 2\\n| banner reads"})
    void shouldRefuseMatrixMarketFilesThatAreNotAGraphSayingWhy(String text, String why) throws IOException {
        Path file = write("bad.mtx", text.replace("\\n", "\n"));
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(file, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains(why.strip()), e.getMessage());
        Path pattern = write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n");
        e = assertThrows(GraphImportException.class, () -> load(pattern, ImportOptions.defaults().withWeightColumn(3)));
        assertTrue(e.getMessage().contains("pattern file: its entries have no values"), e.getMessage());
        Path unnamed = write("no-banner.mtx", "3 3 1\n1 2\n");
        e = assertThrows(GraphImportException.class, () -> load(unnamed, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("first line is not a %%MatrixMarket banner"), e.getMessage());
    }

    /** A CSV with a header line: skipped with --header, its columns picked by name or number; without --header, the error says so. */
    @Test
    void shouldReadAHeaderLineAndPickColumnsByNameOrNumber() throws IOException {
        Path csv = write("g.csv", "# exported\nweight,\"from\",to,note\n0.5,1,2,x\n2,2,3,y\n1.5,3,1,z\n");
        Path twin = write("twin.txt", "1 2 0.5\n2 3 2\n3 1 1.5\n");
        List<String> expected;
        try (GraphFile t = load(twin, ImportOptions.defaults().withWeightColumn(3)).file()) {
            expected = adjacency(t);
        }
        ImportOptions byName = ImportOptions.defaults().withColumns(true, ImportOptions.Columns.parse("from,to,weight"));
        try (GraphFile g = load(csv, byName).file()) {
            assertEquals(expected, adjacency(g));
            assertTrue(g.header().weighted());
        }
        ImportOptions byNumber = ImportOptions.defaults().withColumns(true, ImportOptions.Columns.parse("2,3,1"));
        try (GraphFile g = load(csv, byNumber).file()) {
            assertEquals(expected, adjacency(g));
        }
        ImportOptions reversed = ImportOptions.defaults().withColumns(true, ImportOptions.Columns.parse("to,from"));
        try (GraphFile g = load(csv, reversed).file()) {
            assertEquals(List.of("1: 3", "2: 1", "3: 2"), adjacency(g), "edges read target first, unweighted");
            assertFalse(g.header().weighted());
        }
        Path plain = write("plain.csv", "src,dst\n1,2\n2,3\n");
        try (GraphFile g = load(plain, ImportOptions.defaults().withColumns(true, null)).file()) {
            assertEquals(List.of("1: 2", "2: 3", "3:"), adjacency(g));
        }
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(plain, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains(":1: ") && e.getMessage().contains("set ImportOptions.header"), e.getMessage());
        e = assertThrows(GraphImportException.class, () -> load(csv, ImportOptions.defaults().withColumns(true, ImportOptions.Columns.parse("src,to"))));
        assertTrue(e.getMessage().contains("ImportOptions.columns names 'src', which the header line does not; it names [weight, from, to, note]"), e.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ImportOptions.defaults().withColumns(false, ImportOptions.Columns.parse("from,to")));
        assertTrue(bad.getMessage().contains("they need ImportOptions.header"), bad.getMessage());
        bad = assertThrows(IllegalArgumentException.class, () -> ImportOptions.Columns.parse("1"));
        assertTrue(bad.getMessage().contains("ImportOptions.columns takes SRC,DST or SRC,DST,WEIGHT"), bad.getMessage());
        bad = assertThrows(IllegalArgumentException.class, () -> ImportOptions.defaults().withColumns(false, ImportOptions.Columns.parse("0,2")));
        assertTrue(bad.getMessage().contains("counts from 1"), bad.getMessage());
    }

    /**
     * Names as ids: numbered as they first appear, kept beside the cached graph; the same
     * graph as its integer twin. A header line over integer lines is not taken for names.
     */
    @Test
    void shouldNumberVertexNamesAsTheyFirstAppearAndKeepThem() throws IOException {
        Path named = write("people.txt", "# who follows whom\nalice bob\nbob \"carol smith\"\n\"carol smith\" alice\ndave bob\n");
        Path twin = write("twin.txt", "0 1\n1 2\n2 0\n3 1\n");
        GraphImporter.Imported imported = load(named, ImportOptions.defaults());
        try (GraphFile g = imported.file(); GraphFile t = load(twin, ImportOptions.defaults()).file()) {
            assertEquals(adjacency(t), adjacency(g));
            assertTrue(imported.report().vertexNames);
            VertexNames names = VertexNames.read(g.path());
            assertEquals(List.of("alice", "bob", "carol smith", "dave"), List.of(names.name(0), names.name(1), names.name(2), names.name(3)));
            assertEquals(3, names.find("dave"));
            assertEquals(-1, names.find("eve"));
            assertEquals(null, VertexNames.read(t.path()), "an integer graph has no names");
        }
        Path one = write("one.txt", "x y\n");
        try (GraphFile g = load(one, ImportOptions.defaults()).file()) {
            assertEquals(2, g.header().vertexCount(), "a single line of names is an edge of names");
        }
        Path numbersAsNames = write("n.txt", "10 2\n2 10\n");
        try (GraphFile g = load(numbersAsNames, ImportOptions.defaults().withIds("string")).file()) {
            assertEquals("10", VertexNames.read(g.path()).name(0), "with --ids string, numbers are names too, in order of appearance");
        }
        Path headed = write("headed.txt", "from to\n1 2\n2 3\n");
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(headed, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("headed.txt:1: ") && e.getMessage().contains("set ImportOptions.header"), e.getMessage());
        try (GraphFile g = load(headed, ImportOptions.defaults().withSkipBadLines(true)).file()) {
            assertEquals(3, g.header().vertexCount(), "skipped as a bad line, as before");
        }
        e = assertThrows(GraphImportException.class, () -> load(named, ImportOptions.defaults().withIds("integer")));
        assertTrue(e.getMessage().contains("import with ImportOptions.ids string"), e.getMessage());
        Path mixed = write("mixed.txt", "1 2\n2 bob\n");
        e = assertThrows(GraphImportException.class, () -> load(mixed, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("mixed.txt:2: ") && e.getMessage().contains("ImportOptions.ids string"), e.getMessage());
    }

    @Test
    void shouldMapSparseIdsThatFitAnIntButNotARankArray() throws IOException {
        Path file = write("sparse.txt", "2000000000 5\n5 300000000\n300000000 2000000000\n");
        try (GraphFile g = load(file, ImportOptions.defaults()).file()) {
            assertEquals(List.of("5: 300000000", "300000000: 2000000000", "2000000000: 5"), adjacency(g));
        }
    }

    @Test
    void shouldStoreBothDirectionsDropSelfLoopsAndKeepDuplicatesWhenAsked() throws IOException {
        Path file = write("u.txt", "1 2\n2 3\n1 2\n3 3\n");
        ImportOptions undirected = ImportOptions.defaults().withUndirected(true).withDropSelfLoops(true);
        try (GraphFile g = load(file, undirected).file()) {
            assertEquals(List.of("1: 2", "2: 1 3", "3: 2"), adjacency(g));
            assertFalse(g.header().directed());
        }
        try (GraphFile g = load(file, ImportOptions.defaults().withKeepDuplicates(true)).file()) {
            assertEquals(List.of("1: 2 2", "2: 3", "3: 3"), adjacency(g));
        }
    }

    @Test
    void shouldReadWeightsFromAColumnAndMapThem() throws IOException {
        Path file = write("w.csv", "1,2,-3,1407470400\n2,3,0.25,1\n1,2,5,2\n");
        ImportOptions byColumn = ImportOptions.defaults().withWeightColumn(3);
        try (GraphFile g = load(file, byColumn).file()) {
            assertEquals(List.of("1: 2/-3.0", "2: 3/0.25", "3:"), adjacency(g), "collapsing keeps the smallest weight");
            assertEquals(-3.0, g.header().minWeight());
            assertEquals(0.25, g.header().maxWeight());
        }
        try (GraphFile g = load(file, byColumn.withWeightMap("abs")).file()) {
            assertEquals(List.of("1: 2/3.0", "2: 3/0.25", "3:"), adjacency(g));
        }
        try (GraphFile g = load(file, byColumn.withWeightMap("add:11")).file()) {
            assertEquals(List.of("1: 2/8.0", "2: 3/11.25", "3:"), adjacency(g));
        }
    }

    @Test
    void shouldMakeDeterministicRandomWeightsEqualInBothDirections() throws IOException {
        Path file = write("r.txt", "1 2\n2 3\n3 1\n4 1\n");
        ImportOptions random = ImportOptions.defaults().withUndirected(true).withRandomWeights(42);
        List<String> first;
        try (GraphFile g = load(file, random).file()) {
            first = adjacency(g);
            for (long e = 0; e < g.header().edgeCount(); e++) {
                double w = g.header().weight(g.weights(), e);
                assertTrue(w >= 1 && w <= 255 && w == Math.rint(w), "weight " + w);
            }
            // w(1,2) stored at 1's list and at 2's list must agree
            assertEquals(g.header().weight(g.weights(), 0), g.header().weight(g.weights(), VertexLayout.firstEdge(g.vertices(), 1)));
        }
        try (GraphFile g = GraphImporter.importEdgeList(file, random, dir.resolve("again"), null).file()) {
            assertEquals(first, adjacency(g), "same seed, same weights");
        }
    }

    @Test
    void shouldDetectGzipByItsMagicBytes() throws IOException {
        Path file = dir.resolve("g.data");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write("5 6\n6 5\n".getBytes(StandardCharsets.UTF_8));
        }
        GraphImportException unknown = assertThrows(GraphImportException.class, () -> load(file, ImportOptions.defaults()));
        assertTrue(unknown.getMessage().contains("g.data: has a name Carafe does not know for an edge list")
                && unknown.getMessage().contains("set ImportOptions.format edgelist"), unknown.getMessage());
        try (GraphFile g = load(file, ImportOptions.defaults().withFormat("edgelist")).file()) {
            assertEquals(List.of("5: 6", "6: 5"), adjacency(g), "named, it is read: gzip by its magic bytes, whatever its name");
        }
        Path plain = write("edges", "5 6\n");
        try (GraphFile g = load(plain, ImportOptions.defaults()).file()) {
            assertEquals(2, g.header().vertexCount(), "a file without a suffix is an edge list");
        }
    }

    @Test
    void shouldIncludeIsolatedVerticesFromAVertexFile() throws IOException {
        Path vertices = write("g.v", "1\n2\n3 extra\n9\n");
        Path edges = write("g.e", "1 2 0.5\n");
        try (GraphFile g = load(edges, ImportOptions.defaults().withWeightColumn(3).withVerticesFile(vertices)).file()) {
            assertEquals(List.of("1: 2/0.5", "2:", "3:", "9:"), adjacency(g));
        }
    }

    @Test
    void shouldStopAtAMalformedLineNamingFileLineAndReason() throws IOException {
        assertBad("a.txt", "1 2\n3 x4\n", 2, "3 x4", "'x4' is not a vertex id");
        assertBad("b.txt", "# c\n1 2\n-1 2\n", 3, "-1 2", "'-1' is not a vertex id");
        assertBad("c.txt", "1\n", 1, "1", "expected a source and a target column");
        assertBad("d.txt", "1 99999999999999999999\n", 1, "1 99999999999999999999", "larger than 2^63-1");
        Path weights = write("e.txt", "1 2 3\n1 2\n");
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(weights, ImportOptions.defaults().withWeightColumn(3)));
        assertEquals(2, e.lineNumber());
        assertTrue(e.getMessage().contains("ImportOptions.weightColumn 3 but the line has 2 columns"), e.getMessage());
        Path nan = write("f.txt", "1 2 abc\n");
        e = assertThrows(GraphImportException.class, () -> load(nan, ImportOptions.defaults().withWeightColumn(3)));
        assertTrue(e.getMessage().contains("weight 'abc' is not a finite number"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("cache")) && Files.list(dir.resolve("cache")).findAny().isPresent(),
                "a failed import leaves no graph file behind");
    }

    private void assertBad(String name, String text, long line, String lineText, String reason) throws IOException {
        Path file = write(name, text);
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(file, ImportOptions.defaults()));
        assertEquals(file, e.file());
        assertEquals(line, e.lineNumber());
        assertEquals(lineText, e.line());
        assertTrue(e.reason().contains(reason), e.reason());
        assertTrue(e.getMessage().startsWith(file + ":" + line + ": "), e.getMessage());
        assertTrue(e.getMessage().contains("ImportOptions.skipBadLines"), e.getMessage());
    }

    @Test
    void shouldCountAndSkipBadLinesWhenAsked() throws IOException {
        Path file = write("s.txt", "1 2\nfoo bar\n2 3\n4\n");
        GraphImporter.Imported imported = load(file, ImportOptions.defaults().withSkipBadLines(true));
        try (GraphFile g = imported.file()) {
            assertEquals(2, imported.report().skippedLines);
            assertTrue(imported.report().firstSkipped.contains("s.txt:2"), imported.report().firstSkipped);
            assertEquals(List.of("1: 2", "2: 3", "3:"), adjacency(g));
        }
    }

    @Test
    void shouldRejectAFileWithNoEdges() throws IOException {
        Path file = write("empty.txt", "# nothing here\n\n");
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(file, ImportOptions.defaults()));
        assertTrue(e.getMessage().contains("holds no edges"), e.getMessage());
    }

    @Test
    void shouldReuseTheCacheUntilTheSourceOrTheOptionsChange() throws IOException {
        Path file = write("c.txt", "1 2\n2 3\n");
        load(file, ImportOptions.defaults()).file().close();
        GraphImporter.Imported again = load(file, ImportOptions.defaults());
        again.file().close();
        assertTrue(again.report().fromCache);
        GraphImporter.Imported other = load(file, ImportOptions.defaults().withUndirected(true));
        other.file().close();
        assertFalse(other.report().fromCache, "other options, other graph");
        Files.writeString(file, "1 2\n2 3\n3 1\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
        GraphImporter.Imported changed = load(file, ImportOptions.defaults());
        try (GraphFile g = changed.file()) {
            assertFalse(changed.report().fromCache, "a changed source is parsed again");
            assertEquals(3, g.header().edgeCount());
        }
    }

    @Test
    void shouldRejectContradictoryOptions() {
        assertThrows(IllegalArgumentException.class, () -> ImportOptions.defaults().withWeightColumn(2));
        assertThrows(IllegalArgumentException.class, () -> ImportOptions.defaults().withWeightMap("abs"));
        assertThrows(IllegalArgumentException.class, () -> ImportOptions.defaults().withWeightColumn(3).withWeightMap("times:2"));
        assertThrows(IllegalArgumentException.class, () -> new ImportOptions(false, 0, "gaussian", 0, null, false, false, false, null));
        assertNotEquals(ImportOptions.defaults().fingerprint(), ImportOptions.defaults().withUndirected(true).fingerprint());
        assertNotEquals(ImportOptions.defaults().withRandomWeights(1).fingerprint(), ImportOptions.defaults().withRandomWeights(2).fingerprint());
    }

    /**
     * The vertices file is a pipe, read before the edge list: the edge list grows while
     * the import waits on the pipe, after the importer has noted its size. A graph built
     * from a file that changed under it matches neither version, so the import must fail.
     */
    @Test
    void shouldRefuseAnEdgeListThatChangesWhileItIsRead() throws Exception {
        Path edges = write("growing.e", "1 2\n2 3\n");
        Path pipe = dir.resolve("vertices.pipe");
        org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor() == 0,
                "mkfifo is not available here: this test needs a named pipe");
        Thread writer = Thread.ofPlatform().start(() -> {
            try (var out = Files.newOutputStream(pipe)) { // opens once the importer reads the pipe
                Files.writeString(edges, "3 4\n", java.nio.file.StandardOpenOption.APPEND);
                out.write("1\n2\n3\n4\n".getBytes());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(edges, ImportOptions.defaults().withVerticesFile(pipe)));
        writer.join(10_000);
        assertTrue(e.getMessage().contains("changed while it was read (8 bytes when the import began, 12 now)"), e.getMessage());
        assertFalse(Files.exists(GraphImporter.cacheFile(edges, ImportOptions.defaults().withVerticesFile(pipe), dir.resolve("cache"))),
                "no graph was cached");
    }

    /** A binary file's bad line is shown as at most 80 characters with control bytes escaped, never raw. */
    @Test
    void shouldShowABinaryLineEscapedAndShort() throws IOException {
        byte[] junk = new byte[600];
        for (int i = 0; i < junk.length; i++) {
            junk[i] = (byte) (i % 7 == 0 ? 0 : i % 11 == 0 ? 0x1b : 'a' + i % 26);
        }
        Path file = dir.resolve("binary.e");
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        bytes.write("1 2\n".getBytes());
        bytes.write(junk);
        bytes.write('\n');
        Files.write(file, bytes.toByteArray());
        GraphImportException e = assertThrows(GraphImportException.class, () -> load(file, ImportOptions.defaults()));
        String message = e.getMessage();
        assertTrue(message.chars().allMatch(c -> c == '\n' || (c >= 0x20 && c < 0x7f)), "only printable ASCII and line breaks: " + message);
        String shown = message.lines().filter(l -> l.startsWith("    ")).findFirst().orElseThrow();
        assertTrue(shown.contains("\\x00") && shown.contains("more characters)"), shown);
        assertTrue(shown.length() < 4 + 4 * GraphImportException.SHOWN_CHARACTERS + 40, "short: " + shown.length() + " characters");
    }

    /**
     * A cache directory on a 64 KiB tmpfs: writing the graph file fails part way, which
     * through a mapping shows as an InternalError. The import must say so plainly (an I/O
     * error naming the file) and leave no temporary file taking the space. Needs root to
     * mount; skipped saying why elsewhere.
     */
    @Test
    void shouldReportAFullCacheDirectoryAndLeaveNothingBehind() throws Exception {
        Path small = dir.resolve("small");
        Files.createDirectories(small);
        boolean mounted = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small.toString())
                .redirectErrorStream(true).start().waitFor() == 0;
        org.junit.jupiter.api.Assumptions.assumeTrue(mounted, "cannot mount a small tmpfs here (needs root): the full-disk test is skipped");
        try {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 20_000; i++) {
                text.append(i).append(' ').append((i * 7919L) % 20_000).append('\n');
            }
            Path edges = write("big.e", text.toString());
            java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
                    () -> GraphImporter.importEdgeList(edges, ImportOptions.defaults(), small, null));
            assertTrue(e.getMessage().contains("cannot write the graph cache " + small), e.getMessage());
            assertTrue(e.getMessage().contains("disk full") || e.getMessage().contains("No space left"), e.getMessage());
            try (var left = Files.list(small)) {
                assertEquals(List.of(), left.toList(), "nothing left behind in the cache directory");
            }
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }
}

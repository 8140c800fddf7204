package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A graph's edge lists read back from RStore by range, against the edge list itself read
 * here line by line. In-edges ({@link InEdgeLists}): a directed graph's, stored at import,
 * over ranges of vertices; an undirected graph's are its out-edges; graphs of an older
 * format are refused, naming the way out. Out-edges of chosen vertices
 * ({@link EdgeListReader}): every partition of three, every third vertex or all of them,
 * mapped windows of a few edges (lists longer than a window), and the chunks' own bytes;
 * on a graph over several chunks, lists that cross a chunk.
 */
class EdgeListsTest {
    @TempDir
    Path dir;
    private RStore rstore;

    @BeforeEach
    void start() {
        rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withLocalArenaBytes(1 << 22));
    }

    @AfterEach
    void stop() {
        rstore.close();
    }

    @Test
    void shouldHoldEveryEdgeOfTheBitcoinCsvUnderItsTargetWithItsWeight() throws IOException {
        Map<Long, TreeMap<Long, Double>> expected = BitcoinAlpha.edges(false); // target -> source -> weight
        try (GraphFile file = BitcoinAlpha.importInto(dir); CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
            int n = g.vertexCount();
            assertEquals(3_783, n);
            assertTrue(g.header().has(GraphHeader.Section.IN_WEIGHTS));
            long edges = 0;
            for (int[] range : new int[][] {{0, n}, {0, 1}, {n - 1, n}, {1000, 1000}, {0, 1261}, {1261, 2522}, {2522, n}}) {
                InEdgeLists lists = InEdgeLists.read(rstore, "alpha", range[0], range[1], true);
                for (int i = 0; i < range[1] - range[0]; i++) {
                    int v = range[0] + i;
                    TreeMap<Long, Double> want = expected.getOrDefault(VertexLayout.originalId(file.vertices(), v), new TreeMap<>());
                    assertEquals(want.size(), lists.degree(i), "in-degree of " + v);
                    int k = lists.first(i);
                    for (Map.Entry<Long, Double> edge : want.entrySet()) { // ascending sources
                        assertEquals(edge.getKey(), VertexLayout.originalId(file.vertices(), lists.source(k)), "source of in-edge " + k);
                        assertEquals(edge.getValue(), lists.weight(k), "weight of in-edge " + k);
                        k++;
                    }
                    edges += range[0] == 0 && range[1] == n ? want.size() : 0;
                }
            }
            assertEquals(g.edgeCount(), edges);
            assertNull(InEdgeLists.read(rstore, "alpha", 0, n, false).weights(), "weights only when asked for");
            // mapped a few KiB at a time (pieces end mid-array, a piece per read window): the same arrays
            assertSameLists(InEdgeLists.read(rstore, "alpha", 17, n - 5, true), InEdgeLists.read(rstore, "alpha", 17, n - 5, true, 4096));
            // every vertex's out- and in-degree, as the CSV has them
            Map<Long, TreeMap<Long, Double>> bySource = BitcoinAlpha.edges(true);
            int[] out = CarafeGraph.outDegrees(rstore, "alpha", 0, n);
            int[] in = CarafeGraph.inDegrees(rstore, "alpha", 0, n);
            for (int v = 0; v < n; v++) {
                long id = VertexLayout.originalId(file.vertices(), v);
                assertEquals(bySource.getOrDefault(id, new TreeMap<>()).size(), out[v], "out-degree of " + v);
                assertEquals(expected.getOrDefault(id, new TreeMap<>()).size(), in[v], "in-degree of " + v);
            }
            assertArrayEquals(Arrays.copyOfRange(out, 1261, 2522), CarafeGraph.outDegrees(rstore, "alpha", 1261, 2522), "a range's out-degrees");
        }
    }

    @Test
    void shouldReadEachChosenVertexsOutEdgesWithTheirWeights() throws IOException {
        Map<Long, TreeMap<Long, Double>> expected = BitcoinAlpha.edges(true); // source -> target -> weight
        try (GraphFile file = BitcoinAlpha.importInto(dir); CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
            int n = g.vertexCount();
            long listsChecked = 0;
            long listBytesRead = 0;
            for (int[] range : new int[][] {{0, 1261}, {1261, 2522}, {2522, n}}) {
                int from = range[0];
                int size = range[1] - from;
                long[] edgeStart = new long[size + 1]; // from the edge list, not from the graph
                for (int u = 0; u < size; u++) {
                    long original = VertexLayout.originalId(file.vertices(), from + u);
                    edgeStart[u + 1] = edgeStart[u] + expected.getOrDefault(original, new TreeMap<>()).size();
                }
                for (int every : new int[] {1, 3}) {
                    int[] chosen = new int[size];
                    int count = 0;
                    for (int u = every - 1; u < size; u += every) {
                        chosen[count++] = u;
                    }
                    for (long window : new long[] {1, 7, EdgeListReader.WINDOW_EDGES}) {
                        try (EdgeListReader reader = new EdgeListReader(rstore, "alpha", from, edgeStart, true, window,
                                window == EdgeListReader.WINDOW_EDGES)) {
                            for (int first = 0; first < count; ) {
                                long before = bytesRead();
                                int end = reader.read(chosen, first, count);
                                listBytesRead += bytesRead() - before;
                                assertTrue(end > first, "each read covers a vertex at least");
                                for (int i = first; i < end; i++) {
                                    int u = chosen[i];
                                    TreeMap<Long, Double> got = new TreeMap<>();
                                    for (long e = edgeStart[u]; e < edgeStart[u + 1]; e++) {
                                        got.put(VertexLayout.originalId(file.vertices(), reader.target(e)), reader.weight(e));
                                    }
                                    long original = VertexLayout.originalId(file.vertices(), from + u);
                                    assertEquals(expected.getOrDefault(original, new TreeMap<>()), got, "out-edges of " + original);
                                    listsChecked++;
                                }
                                first = end;
                            }
                        }
                    }
                }
                try (EdgeListReader unweighted = new EdgeListReader(rstore, "alpha", from, edgeStart, false)) {
                    int heaviest = 0;
                    for (int u = 0; u < size; u++) {
                        heaviest = edgeStart[u + 1] - edgeStart[u] > edgeStart[heaviest + 1] - edgeStart[heaviest] ? u : heaviest;
                    }
                    assertEquals(1, unweighted.read(new int[] {heaviest}, 0, 1));
                    assertEquals(1.0, unweighted.weight(edgeStart[heaviest]), "no weights asked for: 1");
                }
            }
            assertEquals(3 * (n + (1261 / 3 + 1261 / 3 + (n - 2522) / 3)), listsChecked);
            // in-process, every window lies within one chunk and is the graph's own bytes (MapFlags.DIRECT): the lists moved nothing
            assertEquals(0, listBytesRead, "bytes of edges and weights read through RStore");
        }
    }

    /**
     * A graph of 12 MB of targets and as many of weights over 1 MiB chunks: lists in the
     * chunks' own bytes ({@link DirectChunks}), lists that cross a chunk (mapped for their
     * read), and every list mapped window by window as a client that reaches no server's
     * memory reads them; each against the edges and weights of the file itself.
     */
    @Test
    void shouldReadChosenListsAcrossChunksDirectlyOrThroughWindows() {
        int n = 1 << 16;
        GraphImporter.Imported imported = GraphImporter.generate("uniform", n, 3_000_000, 7, ImportOptions.defaults().withRandomWeights(3),
                dir.resolve("cache"), null);
        try (GraphFile file = imported.file(); CarafeGraph g = CarafeGraph.create(rstore, "u", file)) {
            assertTrue(file.header().edgesBytes() > 8L << 20, "edges over several chunks");
            int weightBytes = file.header().weightBytes();
            for (int[] range : new int[][] {{0, n / 2}, {n / 2, n}}) {
                int from = range[0];
                int size = range[1] - from;
                long firstEdge = VertexLayout.firstEdge(file.vertices(), from);
                long[] edgeStart = new long[size + 1];
                for (int u = 0; u < size; u++) {
                    edgeStart[u + 1] = edgeStart[u] + VertexLayout.degree(file.vertices(), from + u);
                }
                int[] chosen = new int[size];
                int count = 0;
                for (int u = 0; u < size; u += 1 + u % 5) {
                    chosen[count++] = u;
                }
                for (boolean direct : new boolean[] {true, false}) {
                    long before = bytesRead();
                    int reads = 0;
                    long mapsInFirstPass = 0;
                    long mapsBefore = maps(); // the reader's chunks are mapped as it starts
                    try (EdgeListReader reader = new EdgeListReader(rstore, "u", from, edgeStart, true, EdgeListReader.WINDOW_EDGES, direct)) {
                      for (int pass = 0; pass < 2; pass++) { // as two supersteps would
                        int readsBefore = reads;
                        for (int first = 0; first < count; reads++) {
                            int end = reader.read(chosen, first, count);
                            assertTrue(end > first, "each read covers a vertex at least");
                            for (int i = first; i < end; i++) {
                                for (long e = edgeStart[chosen[i]]; e < edgeStart[chosen[i] + 1]; e++) {
                                    if (reader.target(e) != EdgeLayout.target(file.edges(), firstEdge + e)
                                            || reader.weight(e) != EdgeLayout.weight(file.weights(), firstEdge + e, weightBytes)) {
                                        assertEquals(EdgeLayout.target(file.edges(), firstEdge + e), reader.target(e), "target of edge " + e);
                                        assertEquals(EdgeLayout.weight(file.weights(), firstEdge + e, weightBytes), reader.weight(e), "weight of edge " + e);
                                    }
                                }
                            }
                            first = end;
                        }
                        if (pass == 0) {
                            mapsInFirstPass = maps() - mapsBefore;
                            mapsBefore = maps();
                        } else if (direct) {
                            assertTrue(maps() - mapsBefore < mapsInFirstPass / 2, "chunks mapped once, only lists that cross one again: "
                                    + (maps() - mapsBefore) + " maps, " + mapsInFirstPass + " in the first pass");
                        } else {
                            assertEquals(2L * (reads - readsBefore), maps() - mapsBefore, "a window of targets and one of weights mapped for each read");
                        }
                      }
                    }
                    assertTrue(reads > 4, "reads in several windows or chunks: " + reads);
                    if (direct) { // only the lists that cross a chunk are read, a hundredth of them at most
                        long listBytes = 0;
                        for (int i = 0; i < count; i++) {
                            listBytes += 2 * (edgeStart[chosen[i] + 1] - edgeStart[chosen[i]]) * (EdgeLayout.TARGET_BYTES + weightBytes);
                        }
                        assertTrue(bytesRead() - before < listBytes / 100, (bytesRead() - before) + " bytes read of " + listBytes);
                    }
                }
            }
        }
    }

    /** Mappings this test's client asked the master for. */
    private long maps() {
        return rstore.metrics().timer(io.rstore.MetricNames.RPC_PREFIX + "map").getCount();
    }

    /** Bytes this test's client read through RStore. */
    private long bytesRead() {
        return rstore.metrics().meter(io.rstore.MetricNames.READ_BYTES).getCount();
    }

    @Test
    void shouldServeAnUndirectedGraphsOutEdgesAsItsInEdges() throws IOException {
        Path text = dir.resolve("ring.txt");
        Files.writeString(text, "1 2 5\n2 3 6\n3 1 7\n3 4 8\n");
        try (GraphFile file = GraphImporter.importEdgeList(text, ImportOptions.defaults().withUndirected(true).withWeightColumn(3), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "ring", file)) {
            for (GraphHeader.Section s : new GraphHeader.Section[] {GraphHeader.Section.IN_OFFSETS, GraphHeader.Section.IN_SOURCES, GraphHeader.Section.IN_WEIGHTS}) {
                assertFalse(g.header().has(s), s + " is not stored twice");
            }
            InEdgeLists lists = InEdgeLists.read(rstore, "ring", 1, 4, true); // vertices 2, 3, 4
            assertArrayEquals(new int[] {0, 2, 5, 6}, lists.start());
            assertArrayEquals(new int[] {0, 2, 0, 1, 3, 2}, lists.sources());
            assertArrayEquals(new double[] {5, 6, 7, 6, 8, 8}, weightsOf(lists));
            assertEquals(EdgeLayout.FLOAT_WEIGHT_BYTES, lists.weights().weightBytes(), "whole weights are kept as floats");
            assertSameLists(lists, InEdgeLists.read(rstore, "ring", 1, 4, true, 8));
        }
    }

    /**
     * Weights that are all floats exactly take 4 bytes, in the file, in RStore and in the
     * arrays read from it; one that is not keeps them all at 8. The values are the same
     * either way, and a format-2 file (doubles, before floats) is still read as it is.
     */
    @Test
    void shouldStoreWeightsAsFloatsOnlyWhenEachIsAFloatExactly() throws IOException {
        Path whole = dir.resolve("whole.txt");
        Files.writeString(whole, "1 2 5\n2 3 0.5\n3 1 16777216\n");
        Path fine = dir.resolve("fine.txt");
        Files.writeString(fine, "1 2 5\n2 3 0.1\n3 1 16777217\n"); // 0.1 and 2^24 + 1 are no floats
        ImportOptions weighted = ImportOptions.defaults().withWeightColumn(3);
        Path fineFile;
        try (GraphFile w = GraphImporter.importEdgeList(whole, weighted, dir.resolve("c1"), null).file();
             GraphFile f = GraphImporter.importEdgeList(fine, weighted, dir.resolve("c2"), null).file();
             CarafeGraph gw = CarafeGraph.create(rstore, "whole", w);
             CarafeGraph gf = CarafeGraph.create(rstore, "fine", f)) {
            fineFile = f.path();
            assertEquals(EdgeLayout.FLOAT_WEIGHT_BYTES, w.header().weightBytes());
            assertEquals(3 * 4, w.header().weightsBytes());
            assertEquals(EdgeLayout.DOUBLE_WEIGHT_BYTES, f.header().weightBytes());
            assertEquals(3 * 8, f.header().weightsBytes());
            assertArrayEquals(new double[] {5, 0.5, 16777216}, new double[] {w.header().weight(w.weights(), 0), w.header().weight(w.weights(), 1),
                    w.header().weight(w.weights(), 2)});
            assertArrayEquals(new double[] {16777217}, weightsOf(InEdgeLists.read(rstore, "fine", 0, 1, true)), "vertex 1's in-edge from 3");
            assertArrayEquals(new double[] {0.1}, weightsOf(InEdgeLists.read(rstore, "fine", 2, 3, true)), "vertex 3's in-edge from 2");
            assertArrayEquals(new double[] {0.5}, weightsOf(InEdgeLists.read(rstore, "whole", 2, 3, true)));
            assertEquals(EdgeLayout.FLOAT_WEIGHT_BYTES, InEdgeLists.read(rstore, "whole", 0, 3, true).weights().weightBytes());
            try (GraphPartition p = GraphPartition.open(rstore, "fine", 1, 3)) {
                SequentialEdgeIterator scan = p.scan();
                scan.nextVertex();
                scan.nextInt();
                assertEquals(0.1, scan.weight(), "vertex 2's out-edge, scanned from RStore");
            }
        }
        setVersion(fineFile, 2);
        try (GraphFile old = GraphFile.open(fineFile)) {
            assertTrue(old != null && old.header().weightBytes() == EdgeLayout.DOUBLE_WEIGHT_BYTES, "format 2 is read, its weights doubles");
            assertEquals(0.1, old.header().weight(old.weights(), 1));
        }
    }

    @Test
    void shouldRebuildACacheFileOfAnOlderFormat() throws IOException {
        Path text = dir.resolve("g.txt");
        Files.writeString(text, "1 2\n2 3\n");
        Path cache = dir.resolve("cache");
        Path written;
        try (GraphFile file = GraphImporter.importEdgeList(text, ImportOptions.defaults(), cache, null).file()) {
            written = file.path();
        }
        setVersion(written, 1);
        GraphImporter.Imported again = GraphImporter.importEdgeList(text, ImportOptions.defaults(), cache, null);
        try (GraphFile file = again.file()) {
            assertFalse(again.report().fromCache, "a format-1 file is not used");
            assertEquals(GraphHeader.FORMAT_VERSION, GraphHeader.formatVersion(readHeaderBytes(file.path())));
            assertTrue(file.header().has(GraphHeader.Section.IN_SOURCES));
        }
    }

    @Test
    void shouldRefuseAGraphOfAnOlderFormatInRStoreNamingTheWayOut() throws IOException {
        Path text = dir.resolve("g.txt");
        Files.writeString(text, "1 2\n2 3\n");
        try (GraphFile file = GraphImporter.importEdgeList(text, ImportOptions.defaults(), dir, null).file()) {
            CarafeGraph.create(rstore, "old", file).close();
        }
        var meta = rstore.joinNamespace(CarafeGraph.namespace("old", "meta")).raddress(RStore.RSTORE_INIT_RADDRESS);
        try (var m = meta.map(io.rstore.MapFlags.PREFETCH)) {
            m.segment().set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 8, 1); // the version field
            m.write();
        }
        GraphStoreException e = assertThrows(GraphStoreException.class, () -> CarafeGraph.open(rstore, "old"));
        assertTrue(e.getMessage().contains("format 1") && e.getMessage().contains("load it again (CarafeGraph.delete(\"old\"), then CarafeGraph.load)"), e.getMessage());
        CarafeGraph.delete(rstore, "old"); // and it can be dropped
        assertTrue(CarafeGraph.list(rstore).isEmpty());
    }

    private static void assertSameLists(InEdgeLists expected, InEdgeLists actual) {
        assertArrayEquals(expected.start(), actual.start());
        assertArrayEquals(expected.sources(), actual.sources());
        assertArrayEquals(weightsOf(expected), weightsOf(actual));
    }

    private static double[] weightsOf(InEdgeLists lists) {
        if (lists.weights() == null) {
            return null;
        }
        double[] w = new double[lists.weights().length()];
        for (int k = 0; k < w.length; k++) {
            w[k] = lists.weights().get(k);
        }
        return w;
    }

    private static void setVersion(Path file, int version) throws IOException {
        try (var channel = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, version);
            channel.write(b, 8);
        }
    }

    private static java.lang.foreign.MemorySegment readHeaderBytes(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        return java.lang.foreign.MemorySegment.ofArray(java.util.Arrays.copyOf(all, (int) GraphHeader.BYTES));
    }
}

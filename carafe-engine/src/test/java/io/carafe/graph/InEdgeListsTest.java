package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.carafe.importer.SharedData;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A directed graph's in-edges, stored at import and read back from RStore over ranges of
 * vertices, against the edge list itself read here line by line; an undirected graph's
 * are its out-edges; graphs of an older format are refused, naming the way out.
 */
class InEdgeListsTest {
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
        Path csv = SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz");
        // target -> source -> weight, parallel edges keeping the smallest weight as the import does
        Map<Long, TreeMap<Long, Double>> expected = new TreeMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(csv)), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split(",");
                long source = Long.parseLong(f[0]);
                long target = Long.parseLong(f[1]);
                double weight = Double.parseDouble(f[2]);
                expected.computeIfAbsent(target, t -> new TreeMap<>()).merge(source, weight, Math::min);
            }
        }
        try (GraphFile file = GraphImporter.importEdgeList(csv, ImportOptions.defaults().withWeightColumn(3), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
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
        }
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
            assertArrayEquals(new double[] {5, 6, 7, 6, 8, 8}, lists.weights());
            assertSameLists(lists, InEdgeLists.read(rstore, "ring", 1, 4, true, 8));
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
        assertTrue(e.getMessage().contains("format 1") && e.getMessage().contains("--replace")
                && e.getMessage().contains("carafe graphs drop old"), e.getMessage());
        CarafeGraph.delete(rstore, "old"); // and it can be dropped
        assertTrue(CarafeGraph.list(rstore).isEmpty());
    }

    private static void assertSameLists(InEdgeLists expected, InEdgeLists actual) {
        assertArrayEquals(expected.start(), actual.start());
        assertArrayEquals(expected.sources(), actual.sources());
        assertArrayEquals(expected.weights(), actual.weights());
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

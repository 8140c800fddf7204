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
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chosen vertices' out-edge lists read a window at a time, against the edge list read
 * here line by line: every partition of three, every third vertex or all of them, windows
 * of a few edges (lists longer than a window, lists split by none) and the default.
 */
class EdgeListReaderTest {
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
    void shouldReadEachChosenVertexsOutEdgesWithTheirWeights() throws IOException {
        Path csv = SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz");
        // source -> target -> weight, parallel edges keeping the smallest weight as the import does
        Map<Long, TreeMap<Long, Double>> expected = new HashMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(Files.newInputStream(csv)), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] f = line.split(",");
                expected.computeIfAbsent(Long.parseLong(f[0]), s -> new TreeMap<>()).merge(Long.parseLong(f[1]), Double.parseDouble(f[2]), Math::min);
            }
        }
        try (GraphFile file = GraphImporter.importEdgeList(csv, ImportOptions.defaults().withWeightColumn(3), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
            int n = g.vertexCount();
            long listsChecked = 0;
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
                        try (EdgeListReader reader = new EdgeListReader(rstore, "alpha", from, edgeStart, true, window)) {
                            for (int first = 0; first < count; ) {
                                int end = reader.read(chosen, first, count);
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
        }
    }
}

package io.carafe.algorithms;

import io.carafe.algorithms.resident.Parallel;
import io.carafe.datasets.Datasets;
import io.carafe.graph.CarafeGraph;
import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * What algorithm tests share: an embedded cluster with small chunks per test, a
 * temporary directory (graph cache included), and the real graphs of ../shared/datasets,
 * which are skipped, saying why, where that folder is absent.
 */
public abstract class GraphTestBase {
    @TempDir
    protected Path dir;
    protected RStore rstore;

    @BeforeEach
    void startCluster() {
        rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withLocalArenaBytes(1 << 22));
    }

    @AfterEach
    void stopCluster() {
        rstore.close();
    }

    protected Path cacheDir() {
        return dir.resolve("cache");
    }

    /** Imports {@code file} into this test's cache and loads it into RStore as graph {@code name}. */
    protected GraphFile load(String name, Path file, ImportOptions options) {
        GraphFile g = GraphImporter.importEdgeList(file, options, cacheDir(), null).file();
        CarafeGraph.load(rstore, name, g);
        return g;
    }

    /** An LDBC Graphalytics expected-output file ("vertex value" lines): value text by vertex id. */
    protected static Map<Long, String> expected(Path file) throws IOException {
        Map<Long, String> values = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] parts = line.trim().split(" ");
            values.put(Long.parseLong(parts[0]), parts[1]);
        }
        return values;
    }

    /** LDBC Graphalytics' example graph of {@code kind} (directed or undirected) with its weights and vertices, loaded as graph ldbc-KIND. */
    protected GraphFile loadLdbcExample(String kind) {
        Path base = shared("reference/ldbc-example/example-" + kind + ".e").getParent();
        ImportOptions options = ImportOptions.defaults().withWeightColumn(3).withUndirected(kind.equals("undirected"))
                .withVerticesFile(base.resolve("example-" + kind + ".v"));
        return load("ldbc-" + kind, base.resolve("example-" + kind + ".e"), options);
    }

    /**
     * Writes the weighted graph the tests work out by hand into this test's directory and
     * returns its edge list: 1 -2-> 2 -1-> 3, 1 -5-> 3, 4 -1-> 1, 3 -7-> 6; its vertices file
     * ({@link #handVertices}) adds 5, which has no edges.
     */
    protected Path writeHandGraph() throws IOException {
        Files.writeString(handVertices(), "1\n2\n3\n4\n5\n6\n");
        return Files.writeString(dir.resolve("hand.e"), "1 2 2\n2 3 1\n1 3 5\n4 1 1\n3 6 7\n");
    }

    /** The vertices file {@link #writeHandGraph} writes. */
    protected Path handVertices() {
        return dir.resolve("hand.v");
    }

    /** What a test checks on one of LDBC's example graphs: its kind (directed or undirected), its file, the graph loaded, the threads. */
    protected interface LdbcCheck {
        void check(String kind, GraphFile file, CarafeGraph graph, Parallel threads) throws IOException;
    }

    /** Runs {@code check} on LDBC's directed and undirected examples, each loaded into RStore, with {@code threads} threads. */
    protected void onLdbcExamples(int threads, LdbcCheck check) throws IOException {
        for (String kind : new String[] {"directed", "undirected"}) {
            try (GraphFile g = loadLdbcExample(kind); CarafeGraph graph = CarafeGraph.open(rstore, "ldbc-" + kind);
                 Parallel parallel = new Parallel(threads)) {
                check.check(kind, g, graph, parallel);
            }
        }
    }

    /** LDBC's expected output of {@code algorithm} (BFS, WCC, SSSP, ...) on the example graph of {@code kind}, by vertex id. */
    protected static Map<Long, String> ldbcExpected(String kind, String algorithm) throws IOException {
        return expected(shared("reference/ldbc-example/example-" + kind + "-" + algorithm));
    }

    /** The source vertex the example graph's .properties names for {@code algorithm} (bfs or sssp). */
    protected static long ldbcSource(String kind, String algorithm) throws IOException {
        java.util.Properties properties = new java.util.Properties();
        try (var in = Files.newBufferedReader(shared("reference/ldbc-example/example-" + kind + ".properties"))) {
            properties.load(in);
        }
        return Long.parseLong(properties.getProperty("graph.example-" + kind + "." + algorithm + ".source-vertex").trim());
    }

    protected static Path shared(String relative) {
        Path root = Datasets.sharedDir().orElse(null);
        Assumptions.assumeTrue(root != null, "no shared/datasets beside the checkout: the real-graph tests need it");
        Path file = root.resolve(relative);
        Assumptions.assumeTrue(Files.exists(file), file + " is missing");
        return file;
    }
}

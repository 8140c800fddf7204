package io.carafe.importer;

import io.carafe.datasets.Generator;
import io.carafe.graph.GraphHeader;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A generated graph with --weights random is the cached topology with weights drawn for it:
 * byte for byte the file that generating and building with the weights gives.
 */
class DrawnWeightsTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldDrawTheWeightsABuildWouldHaveDrawn(boolean undirected) throws Exception {
        ImportOptions weighted = ImportOptions.defaults().withUndirected(undirected).withRandomWeights(7);
        GraphImporter.Imported drawn = GraphImporter.generate("rmat", 4096, 40_000, 3, weighted, dir, null);
        assertTrue(drawn.report().weightsDrawn, "drawn for the topology, not generated and built again");
        assertTrue(Files.exists(dir.resolve("generated-rmat-4096-40000-3-" + Long.toHexString(weighted.withoutWeights().fingerprint()) + ".carafe")),
                "the unweighted topology is cached too");

        // the way before: generate and build with the weights
        ImportReport report = new ImportReport();
        GraphBuilder builder = new GraphBuilder(weighted, report);
        Generator.rmat(builder, 4096, 40_000, 3);
        Path built = dir.resolve("built.carafe");
        builder.write(built, 0, 0);
        try (GraphFile a = drawn.file(); GraphFile b = GraphFile.open(built)) {
            GraphHeader ha = a.header();
            GraphHeader hb = b.header();
            assertEquals(hb, ha);
            assertEquals(-1, a.vertices().mismatch(b.vertices()));
            assertEquals(-1, a.edges().mismatch(b.edges()));
            MemorySegment wa = a.weights();
            assertEquals(-1, wa.mismatch(b.weights()));
            assertTrue(ha.weighted() && ha.minWeight() >= 1 && ha.maxWeight() <= 255 && ha.edgeCount() > 30_000, ha.toString());
        }
        // and a second time from the cache
        try (GraphFile again = GraphImporter.generate("rmat", 4096, 40_000, 3, weighted, dir, null).file()) {
            assertEquals(drawn.file().header().edgeCount(), again.header().edgeCount());
        }
    }
}

package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Original ids of a range read a window at a time: in order, across windows, backwards, and nothing outside the range. */
class VertexRecordsTest {
    @TempDir
    Path dir;

    @Test
    void shouldGiveEveryVertexItsOriginalIdAcrossWindows() throws IOException {
        int n = 2 * VertexRecords.WINDOW_RECORDS + 1000;
        StringBuilder ring = new StringBuilder();
        for (long i = 0; i < n; i++) {
            ring.append(3 * i + 7).append(' ').append(3 * ((i + 1) % n) + 7).append('\n'); // original ids 7, 10, 13, ...
        }
        Path text = dir.resolve("ring.txt");
        Files.writeString(text, ring);
        try (RStore rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20));
             GraphFile file = GraphImporter.importEdgeList(text, ImportOptions.defaults(), dir.resolve("cache"), null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "ring", file);
             VertexRecords records = new VertexRecords(rstore, "ring", 500, n - 3)) {
            for (int v = 500; v < n - 3; v++) {
                assertEquals(3L * v + 7, records.originalId(v), "vertex " + v);
            }
            Random random = new Random(3);
            for (int k = 0; k < 1000; k++) {
                int v = 500 + random.nextInt(n - 503);
                assertEquals(3L * v + 7, records.originalId(v), "vertex " + v + " out of order");
            }
            assertThrows(IndexOutOfBoundsException.class, () -> records.originalId(499));
            assertThrows(IndexOutOfBoundsException.class, () -> records.originalId(n - 3));
        }
    }
}

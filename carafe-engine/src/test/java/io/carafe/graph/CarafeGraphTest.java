package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.rstore.ErrorCode;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CarafeGraphTest {
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

    private GraphFile importText(String text, ImportOptions options) throws IOException {
        Path file = dir.resolve("g" + text.hashCode() + ".txt");
        Files.writeString(file, text);
        return GraphImporter.importEdgeList(file, options, dir.resolve("cache"), null).file();
    }

    @Test
    void shouldServeVerticesAndEdgesThroughHandlesAndIterators() throws IOException {
        try (GraphFile file = importText("10 20 0.5\n10 30 1.5\n20 30 2\n30 10 4\n", ImportOptions.defaults().withWeightColumn(3));
             CarafeGraph g = CarafeGraph.create(rstore, "tiny", file)) {
            assertEquals(3, g.vertexCount());
            assertEquals(4, g.edgeCount());
            assertTrue(g.isWeighted() && g.isDirected());
            int ten = g.vertexId(10);
            assertEquals(0, ten);
            assertEquals(2, g.vertexId(30));
            assertEquals(-1, g.vertexId(25));
            try (VertexHandle v = g.vertex(ten)) {
                assertEquals(10, v.originalId());
                assertEquals(2, v.degree());
                EdgeIterator it = v.edges();
                assertEquals(1, it.nextInt());
                assertEquals(0.5, it.weight());
                assertEquals(2, it.nextInt());
                assertEquals(1.5, it.weight());
                assertEquals(-1, it.nextInt());
                v.moveTo(2);
                assertEquals(30, v.originalId());
                EdgeIterator again = v.edges();
                assertEquals(0, again.nextInt());
                assertEquals(4.0, again.weight());
                assertEquals(0, v.edges().nextInt(), "edges() restarts the iterator");
                assertThrows(IllegalStateException.class, () -> v.edges().weight(), "no edge returned yet");
            }
            assertThrows(IndexOutOfBoundsException.class, () -> g.vertex(3));
            assertEquals(List.of("tiny"), CarafeGraph.list(rstore));
        }
    }

    @Test
    void shouldTakeLocalMemoryForAnArrayOnlyWhenItIsFirstUsed() throws IOException {
        StringBuilder text = new StringBuilder();
        for (int v = 0; v < 20_000; v++) {
            text.append(v).append(' ').append((v * 7 + 1) % 20_000).append('\n');
        }
        // arenas of 64 KiB: the records (640 KB) and the targets (80 KB) each take memory of their own
        try (GraphFile file = importText(text.toString(), ImportOptions.defaults());
             RStore small = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withLocalArenaBytes(1 << 16))) {
            CarafeGraph.load(small, "lazy", file);
            long before = small.localMemoryHeldBytes();
            try (CarafeGraph g = CarafeGraph.open(small, "lazy")) {
                assertEquals(before, small.localMemoryHeldBytes(), "opening maps nothing: a Pregel command's coordinator never reads the arrays");
                assertEquals(4_999, g.vertexId(4_999));
                long withRecords = small.localMemoryHeldBytes();
                assertTrue(withRecords >= before + 20_000 * VertexLayout.BYTES, "the records are mapped for the lookup");
                try (VertexHandle v = g.vertex(3)) {
                    assertEquals(22, v.edges().nextInt());
                }
                assertTrue(small.localMemoryHeldBytes() >= withRecords + 20_000 * EdgeLayout.TARGET_BYTES, "and the targets for the edges");
            }
            CarafeGraph closed = CarafeGraph.open(small, "lazy");
            closed.close();
            assertThrows(GraphStoreException.class, closed::vertexRecords, "nothing is mapped after close");
        }
    }

    @Test
    void shouldReadLongAdjacencyListsInBatches() throws IOException {
        StringBuilder star = new StringBuilder();
        int leaves = 3 * EdgeIterator.BATCH_EDGES + 17;
        for (int i = 1; i <= leaves; i++) {
            star.append("0 ").append(i).append('\n');
        }
        try (GraphFile file = importText(star.toString(), ImportOptions.defaults()); CarafeGraph g = CarafeGraph.create(rstore, "star", file)) {
            EdgeIterator it = g.vertex(0).edges();
            int count = 0;
            int t;
            int last = 0;
            while ((t = it.nextInt()) >= 0) {
                assertEquals(last + 1, t, "targets in order across batches");
                assertEquals(1.0, it.weight(), "unweighted edges weigh 1");
                last = t;
                count++;
            }
            assertEquals(leaves, count);
        }
    }

    @Test
    void shouldScanEveryVertexAndEdgeSequentially() throws IOException {
        StringBuilder text = new StringBuilder();
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 50_000; i++) {
            text.append(random.nextInt(3000)).append(' ').append(random.nextInt(3000)).append('\n');
        }
        try (GraphFile file = importText(text.toString(), ImportOptions.defaults()); CarafeGraph g = CarafeGraph.create(rstore, "random", file)) {
            List<Long> scanned = new ArrayList<>();
            List<Long> online = new ArrayList<>();
            SequentialEdgeIterator scan = g.scan(0, g.vertexCount());
            for (int v; (v = scan.nextVertex()) >= 0; ) {
                scanned.add(scan.originalId());
                for (int t; (t = scan.nextInt()) >= 0; ) {
                    scanned.add((long) t);
                }
            }
            VertexHandle h = g.vertex(0);
            for (int v = 0; v < g.vertexCount(); v++) {
                h.moveTo(v);
                online.add(h.originalId());
                EdgeIterator it = h.edges();
                for (int t; (t = it.nextInt()) >= 0; ) {
                    online.add((long) t);
                }
            }
            assertEquals(online, scanned);
            assertEquals(g.vertexCount() + g.edgeCount(), scanned.size());
        }
    }

    /**
     * 4.3M edges: the target section passes 16 MiB, so the cache file starts it on a chunk
     * boundary and the embedded cluster maps its whole chunks from the file; what RStore
     * serves must still be the file's edges, every one.
     */
    @Test
    void shouldServeALargeSectionMappedFromTheCacheFile() {
        GraphImporter.Imported imported = GraphImporter.generate("uniform", 1 << 20, 4_300_000, 7, ImportOptions.defaults(), dir.resolve("cache"), null);
        try (GraphFile file = imported.file(); CarafeGraph g = CarafeGraph.create(rstore, "large", file)) {
            assertEquals(0, file.header().edgesAt() % (16L << 20), "large sections start on a multiple of 16 MiB");
            assertTrue(file.header().edgesBytes() > 16L << 20);
            SequentialEdgeIterator scan = g.scan(0, g.vertexCount());
            long e = 0;
            for (int v; (v = scan.nextVertex()) >= 0; ) {
                assertEquals(VertexLayout.originalId(file.vertices(), v), scan.originalId());
                for (int t; (t = scan.nextInt()) >= 0; e++) {
                    if (t != EdgeLayout.target(file.edges(), e)) {
                        assertEquals(EdgeLayout.target(file.edges(), e), t, "edge " + e);
                    }
                }
            }
            assertEquals(file.header().edgeCount(), e);
        }
    }

    @Test
    void shouldRefuseADuplicateNameAndDeleteCleanly() throws IOException {
        try (GraphFile file = importText("1 2\n", ImportOptions.defaults())) {
            CarafeGraph.create(rstore, "g", file).close();
            GraphStoreException dup = assertThrows(GraphStoreException.class, () -> CarafeGraph.create(rstore, "g", file));
            assertTrue(dup.getMessage().contains("already in RStore"), dup.getMessage());
            CarafeGraph.delete(rstore, "g");
            assertTrue(rstore.namespaces().isEmpty(), "deleting a graph removes all its namespaces");
            GraphStoreException missing = assertThrows(GraphStoreException.class, () -> CarafeGraph.open(rstore, "g"));
            assertTrue(missing.getMessage().contains("load it first"), missing.getMessage());
            assertThrows(GraphStoreException.class, () -> CarafeGraph.delete(rstore, "g"));
            assertThrows(GraphStoreException.class, () -> CarafeGraph.open(rstore, "bad name!"));
        }
    }

    @Test
    void shouldLeaveNothingBehindWhenLoadingFails() throws IOException {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 200_000; i++) {
            text.append(i).append(' ').append(i + 1).append('\n');
        }
        try (GraphFile file = importText(text.toString(), ImportOptions.defaults());
             RStore small = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withMemoryServers(1)
                     .withServerCapacityBytes(4 << 20))) {
            RStoreException e = assertThrows(RStoreException.class, () -> CarafeGraph.create(small, "big", file));
            assertEquals(ErrorCode.OUT_OF_MEMORY, e.code());
            assertTrue(small.namespaces().isEmpty(), "no namespace of the failed graph is left");
            assertTrue(CarafeGraph.list(small).isEmpty());
        }
    }

    @Test
    void shouldRefuseToOpenAGraphWhoseImportDidNotFinish() throws IOException {
        try (GraphFile file = importText("1 2\n", ImportOptions.defaults())) {
            CarafeGraph.create(rstore, "half", file).close();
            // simulate a loader that died before publishing: flip the state back
            var meta = rstore.joinNamespace(CarafeGraph.namespace("half", "meta")).raddress(RStore.RSTORE_INIT_RADDRESS);
            try (var m = meta.map(io.rstore.MapFlags.PREFETCH)) {
                m.segment().set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, GraphHeader.stateOffset(), GraphHeader.BUILDING);
                m.write();
            }
            GraphStoreException e = assertThrows(GraphStoreException.class, () -> CarafeGraph.open(rstore, "half"));
            assertTrue(e.getMessage().contains("incomplete"), e.getMessage());
        }
    }
}

package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.carafe.importer.SharedData;
import io.rstore.MetricNames;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A partition's scan against the imported file's own arrays: every target and weight, in
 * windows much smaller than the partition, after passes that skipped most edges; and a
 * scan that restarts reads nothing from RStore again (a job's graph does not change).
 */
class GraphPartitionTest {
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
    void shouldScanEveryEdgeAgainAfterARestartWithoutReadingItAgain() {
        Path csv = SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz");
        try (GraphFile file = GraphImporter.importEdgeList(csv, ImportOptions.defaults().withWeightColumn(3), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
            int from = 100;
            int to = g.vertexCount() - 100;
            try (GraphPartition part = GraphPartition.open(rstore, "alpha", from, to)) {
                SequentialEdgeIterator scan = part.scan(4096); // 1,024 edges a window: the partition has ~24 thousand
                // first pass: the first edge of one vertex in fifty, so most windows go unread
                for (int v; (v = scan.nextVertex()) >= 0; ) {
                    if (v % 50 == 0 && VertexLayout.degree(file.vertices(), v) > 0) {
                        assertEquals(EdgeLayout.target(file.edges(), VertexLayout.firstEdge(file.vertices(), v)), scan.nextInt(), "vertex " + v);
                    }
                }
                scan.restart();
                long read = readBytes();
                assertEquals(part.edgeCount(), checkEveryEdge(scan, file, from, to));
                assertTrue(readBytes() > read, "the windows the first pass skipped were read");
                scan.restart();
                read = readBytes();
                assertEquals(part.edgeCount(), checkEveryEdge(scan, file, from, to));
                assertEquals(read, readBytes(), "bytes read from RStore by a pass after a restart");
            }
        }
    }

    /**
     * A scan that maps a window at a time: every edge and weight right, in a pass that skips
     * most windows, after a restart, and after going back to a vertex's first edge; and it
     * holds no more local memory than its windows, however large its range.
     */
    @Test
    void shouldScanEveryEdgeAWindowAtATimeHoldingOnlyTheWindows() {
        Path csv = SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz");
        try (GraphFile file = GraphImporter.importEdgeList(csv, ImportOptions.defaults().withWeightColumn(3), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
            int from = 100;
            int to = g.vertexCount() - 100;
            long edges = VertexLayout.firstEdge(file.vertices(), to - 1) + VertexLayout.degree(file.vertices(), to - 1)
                    - VertexLayout.firstEdge(file.vertices(), from);
            try (SequentialEdgeIterator scan = GraphPartition.scanWindows(rstore, "alpha", from, to, 4096, false)) { // 1,024 edges a window
                for (int v; (v = scan.nextVertex()) >= 0; ) {
                    if (v % 50 == 0 && VertexLayout.degree(file.vertices(), v) > 1) {
                        long first = VertexLayout.firstEdge(file.vertices(), v);
                        assertEquals(EdgeLayout.target(file.edges(), first), scan.nextInt(), "vertex " + v);
                        assertEquals(EdgeLayout.target(file.edges(), first + 1), scan.nextInt(), "vertex " + v);
                        scan.rewindEdges();
                        assertEquals(EdgeLayout.target(file.edges(), first), scan.nextInt(), "vertex " + v + " again");
                    }
                }
                scan.restart();
                assertEquals(edges, checkEveryEdge(scan, file, from, to));
                scan.restart();
                assertEquals(edges, checkEveryEdge(scan, file, from, to));
            }
        }
    }

    /**
     * Slashdot's 948,464 edges and 82,168 records (about 6.4 MB) do not fit in this client's
     * 4 MiB arenas: mapping them whole takes more local memory (the control), scanning them a
     * window at a time takes none beyond what the client holds already.
     */
    @Test
    void shouldHoldOnlyItsWindowsWhateverTheRange() {
        Path edgeList = SharedData.file("snap/soc-Slashdot0902.txt.gz");
        try (GraphFile file = GraphImporter.importEdgeList(edgeList, ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "slashdot", file)) {
            long held = rstore.localMemoryHeldBytes();
            long edges = 0;
            try (SequentialEdgeIterator scan = GraphPartition.scanWindows(rstore, "slashdot", 0, g.vertexCount(), 64 << 10, false)) {
                while (scan.nextVertex() >= 0) {
                    while (scan.nextInt() >= 0) {
                        edges++;
                    }
                }
                assertEquals(g.edgeCount(), edges);
                assertEquals(held, rstore.localMemoryHeldBytes(), "a windowed scan holds its windows in the arenas the client has");
            }
            try (GraphPartition whole = GraphPartition.open(rstore, "slashdot", 0, g.vertexCount())) {
                assertTrue(rstore.localMemoryHeldBytes() >= held + 4 * whole.edgeCount(), "the control: the range mapped whole takes its size");
            }
        }
    }

    /**
     * In-process, a windowed scan's windows are the chunks' own bytes (MapFlags.DIRECT):
     * mapped windows end at multiples of their size, so none crosses one of the 1 MiB chunks
     * that Slashdot's 3.8 MB of targets, its weights and 2.6 MB of records span, and a pass
     * over every edge and weight of a partition reads nothing through RStore, twice. A scan
     * of the chunks themselves ({@link DirectChunks}) maps each once: its second pass asks
     * the master for no mapping at all; one that maps windows asks again for every window.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldScanTheChunksOwnBytesInProcessReadingNothing(boolean direct) {
        Path edgeList = SharedData.file("snap/soc-Slashdot0902.txt.gz");
        try (GraphFile file = GraphImporter.importEdgeList(edgeList, ImportOptions.defaults().withRandomWeights(1), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "slashdot", file)) {
            int from = 100;
            int to = g.vertexCount() - 100;
            long edges = VertexLayout.firstEdge(file.vertices(), to - 1) + VertexLayout.degree(file.vertices(), to - 1)
                    - VertexLayout.firstEdge(file.vertices(), from);
            try (SequentialEdgeIterator scan = GraphPartition.scanWindows(rstore, "slashdot", from, to, 64 << 10, direct)) {
                long read = readBytes();
                assertEquals(edges, checkEveryEdge(scan, file, from, to));
                scan.restart();
                long maps = maps();
                assertEquals(edges, checkEveryEdge(scan, file, from, to));
                assertEquals(read, readBytes(), "bytes read through RStore by two passes over direct windows");
                if (direct) {
                    assertEquals(maps, maps(), "mappings asked for by a second pass over the chunks");
                } else {
                    assertTrue(maps() - maps > 100, "a window mapped as the pass reaches it: " + (maps() - maps));
                }
            }
        }
    }

    /**
     * A pass that reads the edges of a few vertices far apart (a superstep in which few
     * compute) maps about their edges, not a window for each; every edge is right in it
     * and in a pass over all of them after it.
     */
    @Test
    void shouldMapOnlyAVertexsEdgesWhenItReadsSparsely() {
        Path edgeList = SharedData.file("snap/soc-Slashdot0902.txt.gz");
        try (GraphFile file = GraphImporter.importEdgeList(edgeList, ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "slashdot", file)) {
            long windowBytes = 64 << 10;
            try (SequentialEdgeIterator scan = GraphPartition.scanWindows(rstore, "slashdot", 0, g.vertexCount(), windowBytes, false)) {
                long start = readBytes();
                int readers = 0;
                for (int v; (v = scan.nextVertex()) >= 0; ) {
                    if (v % 4000 == 3999 && scan.degree() > 0) {
                        long e = VertexLayout.firstEdge(file.vertices(), v);
                        for (int t; (t = scan.nextInt()) >= 0; e++) {
                            assertEquals(EdgeLayout.target(file.edges(), e), t, "edge " + e + " of vertex " + v);
                        }
                        readers++;
                    }
                }
                long recordBytes = (long) g.vertexCount() * VertexLayout.BYTES;
                long edgeBytes = readBytes() - start - recordBytes;
                assertTrue(readers >= 15, readers + " vertices read their edges");
                assertTrue(edgeBytes < readers * windowBytes / 4, readers + " vertices far apart read " + edgeBytes
                        + " bytes of edges; a window each would be " + readers * windowBytes);
                scan.restart();
                long e = 0;
                for (int v; (v = scan.nextVertex()) >= 0; ) {
                    for (int t; (t = scan.nextInt()) >= 0; e++) {
                        assertEquals(EdgeLayout.target(file.edges(), e), t, "edge " + e + " of vertex " + v);
                    }
                }
                assertEquals(g.edgeCount(), e);
            }
        }
    }

    /** Walks the scan over [from, to), checking each edge against the file; returns how many edges it saw. */
    private static long checkEveryEdge(SequentialEdgeIterator scan, GraphFile file, int from, int to) {
        long edges = 0;
        for (int expected = from; expected < to; expected++) {
            assertEquals(expected, scan.nextVertex());
            assertEquals(VertexLayout.originalId(file.vertices(), expected), scan.originalId());
            long e = VertexLayout.firstEdge(file.vertices(), expected);
            for (int t; (t = scan.nextInt()) >= 0; e++, edges++) {
                assertEquals(EdgeLayout.target(file.edges(), e), t, "edge " + e);
                assertEquals(file.header().weight(file.weights(), e), scan.weight(), "weight of edge " + e);
            }
            assertEquals(VertexLayout.firstEdge(file.vertices(), expected) + VertexLayout.degree(file.vertices(), expected), e);
        }
        assertEquals(-1, scan.nextVertex());
        return edges;
    }

    /** Mappings this test's client asked the master for. */
    private long maps() {
        return rstore.metrics().timer(MetricNames.RPC_PREFIX + "map").getCount();
    }

    private long readBytes() {
        return rstore.metrics().meter(MetricNames.READ_BYTES).getCount();
    }
}

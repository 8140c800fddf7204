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

    private long readBytes() {
        return rstore.metrics().meter(MetricNames.READ_BYTES).getCount();
    }
}

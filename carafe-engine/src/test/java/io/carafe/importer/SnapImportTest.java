package io.carafe.importer;

import io.carafe.graph.VertexLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real SNAP graphs from ../shared/datasets give SNAP's published counts. */
class SnapImportTest {
    @TempDir
    Path cache;

    private ImportReport check(String file, ImportOptions options, long vertices, long edgeLines) {
        GraphImporter.Imported imported = GraphImporter.importEdgeList(SharedData.file(file), options, cache, null);
        try (GraphFile g = imported.file()) {
            ImportReport r = imported.report();
            assertEquals(vertices, r.vertices, file + " vertices");
            assertEquals(edgeLines, r.edgeLines, file + " edge lines");
            assertEquals(vertices, g.header().vertexCount());
            assertEquals(r.edges, g.header().edgeCount());
            // degrees add up to the stored edges and lists are in bounds
            long sum = 0;
            for (long v = 0; v < vertices; v++) {
                assertEquals(sum, VertexLayout.firstEdge(g.vertices(), v));
                sum += VertexLayout.degree(g.vertices(), v);
            }
            assertEquals(r.edges, sum);
            return r;
        }
    }

    @Test
    void shouldImportWikiVoteWithSnapsCounts() {
        ImportReport r = check("snap/wiki-Vote.txt", ImportOptions.defaults(), 7_115, 103_689);
        assertTrue(r.matchesHeader(), r.summary());
        assertEquals(0, r.duplicates);
        assertEquals(103_689, r.edges);
    }

    @Test
    void shouldImportGzippedSlashdotWithSnapsCounts() {
        ImportReport r = check("snap/soc-Slashdot0902.txt.gz", ImportOptions.defaults(), 82_168, 948_464);
        assertTrue(r.matchesHeader(), r.summary());
        assertEquals(0, r.skippedLines);
    }

    @Test
    void shouldImportEmailEuCoreWithoutHeaderAndCountSelfLoops() {
        ImportReport r = check("snap/email-Eu-core.txt.gz", ImportOptions.defaults(), 1_005, 25_571);
        assertEquals(-1, r.headerNodes);
        assertEquals(642, r.selfLoops);
    }

    /** --self-loops drop removes edges, never vertices: 19 of email-Eu-core's have no edge but their self-loop. */
    @Test
    void shouldDropSelfLoopEdgesAndKeepEveryVertex() {
        ImportReport kept = check("snap/email-Eu-core.txt.gz", ImportOptions.defaults(), 1_005, 25_571);
        ImportReport dropped = check("snap/email-Eu-core.txt.gz", ImportOptions.defaults().withDropSelfLoops(true), 1_005, 25_571);
        assertEquals(642, dropped.selfLoops);
        assertEquals(kept.edges - 642, dropped.edges);
    }

    @Test
    void shouldCollapseAGraphListedInBothDirectionsIntoOneEdgeEachWay() {
        ImportReport r = check("snap/CA-CondMat.txt", ImportOptions.defaults().withUndirected(true), 23_133, 186_936);
        // 93,439 pairs listed in both directions plus 58 self-loops listed once: storing both
        // directions of every line adds each pair's two edges twice, and a self-loop once
        assertEquals(2 * 93_439 + 58, r.edges);
        assertEquals(2 * 93_439, r.duplicates);
        assertEquals(58, r.selfLoops);
    }

    @Test
    void shouldImportSignedWeightsFromTheBitcoinCsv() {
        GraphImporter.Imported imported = GraphImporter.importEdgeList(SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz"),
                ImportOptions.defaults().withWeightColumn(3), cache, null);
        try (GraphFile g = imported.file()) {
            assertEquals(3_783, g.header().vertexCount());
            assertEquals(24_186, imported.report().edgeLines);
            assertEquals(-10.0, g.header().minWeight());
            assertEquals(10.0, g.header().maxWeight());
        }
    }
}

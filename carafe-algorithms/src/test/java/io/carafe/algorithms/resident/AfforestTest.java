package io.carafe.algorithms.resident;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.algorithms.references.References;
import io.carafe.graph.CarafeGraph;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.ImportOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Afforest against LDBC Graphalytics' expected WCC output, SNAP's published largest
 * component, the sequential union-find of {@link References} and a graph worked out by
 * hand, directed and undirected, with one to four threads.
 */
@Timeout(300)
class AfforestTest extends GraphTestBase {

    private Afforest.Result run(String name, int threads) {
        try (CarafeGraph g = CarafeGraph.open(rstore, name); Parallel parallel = new Parallel(threads)) {
            return Afforest.run(ResidentGraph.read(g), parallel);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldMatchTheLdbcExampleAnswers(int threads) throws IOException {
        for (String kind : new String[] {"directed", "undirected"}) {
            try (GraphFile g = loadLdbcExample(kind)) {
                long[] labels = run("ldbc-" + kind, threads).labels();
                Map<Long, String> want = ldbcExpected(kind, "WCC");
                assertEquals(want.size(), labels.length);
                for (int v = 0; v < labels.length; v++) {
                    long id = VertexLayout.originalId(g.vertices(), v);
                    assertEquals(Long.parseLong(want.get(id)), labels[v], kind + " vertex " + id + " with " + threads + " threads");
                }
            }
        }
    }

    /**
     * Directed, so the large component's vertices may not skip their edges: 1 is a hub whose
     * third and later out-edges (past the two the first rounds link) are the only way to 7
     * and 8, and 9 reaches the hub only through its own third edge.
     * <pre>
     *   1 -> 2, 3, 4, 5, 6, 7, 8      2 -> 1, 3     3 -> 1, 2     4 -> 1, 2     5 -> 1
     *   9 -> 10, 11, 1     12 -> 13     14
     * </pre>
     * Components: {1..11} labelled 1, {12, 13} labelled 12, {14} labelled 14.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldFindComponentsWorkedOutByHand(boolean undirected) throws IOException {
        Path edges = dir.resolve("hand.e");
        Files.writeString(edges, "1 2\n1 3\n1 4\n1 5\n1 6\n1 7\n1 8\n2 1\n2 3\n3 1\n3 2\n4 1\n4 2\n5 1\n9 10\n9 11\n9 1\n12 13\n");
        Path vertices = dir.resolve("hand.v");
        Files.writeString(vertices, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n");
        String name = "hand-" + undirected;
        try (GraphFile g = load(name, edges, ImportOptions.defaults().withUndirected(undirected).withVerticesFile(vertices))) {
            for (int threads = 1; threads <= 4; threads++) {
                Afforest.Result r = run(name, threads);
                assertArrayEquals(new long[] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 12, 12, 14}, r.labels(), threads + " threads");
                assertEquals(3, r.components());
                assertEquals(11, r.largest());
                assertEquals(1, r.largestLabel());
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"snap/wiki-Vote.txt, 7066", "snap/email-Eu-core.txt.gz, 986", "snap/p2p-Gnutella05.txt, 8842", "snap/soc-Slashdot0902.txt.gz, 82168",
            "snap/CA-CondMat.txt, 21363"})
    void shouldAgreeWithASequentialUnionFindAndSnapsLargestComponent(String file, int snapLargestWcc) {
        for (boolean undirected : new boolean[] {false, true}) {
            String name = file.replaceAll("\\W", "-") + undirected;
            try (GraphFile g = load(name, shared(file), ImportOptions.defaults().withUndirected(undirected))) {
                long[] want = References.weakComponents(g);
                for (int threads : new int[] {1, 2, 4}) {
                    Afforest.Result r = run(name, threads);
                    assertArrayEquals(want, r.labels(), file + (undirected ? " undirected" : " directed") + " with " + threads + " threads");
                    assertEquals(snapLargestWcc, r.largest(), "SNAP's largest weakly connected component of " + file);
                    assertEquals(Arrays.stream(want).distinct().count(), r.components());
                }
            }
        }
    }

    @Test
    void shouldHandleAGraphWithoutEdges() throws IOException {
        Path edges = dir.resolve("none.e");
        Files.writeString(edges, "");
        Path vertices = dir.resolve("none.v");
        Files.writeString(vertices, "5\n7\n");
        try (GraphFile g = load("none", edges, ImportOptions.defaults().withVerticesFile(vertices))) {
            Afforest.Result r = run("none", 2);
            assertArrayEquals(new long[] {5, 7}, r.labels());
            assertEquals(2, r.components());
        }
    }
}

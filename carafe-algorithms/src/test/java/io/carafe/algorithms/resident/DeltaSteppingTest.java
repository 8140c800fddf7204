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
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Δ-stepping against LDBC Graphalytics' expected SSSP output, the sequential Dijkstra of
 * {@link References} on real weighted graphs (the p2p-31 weights, random weights on
 * Slashdot) with bucket widths from far below to far above the weights and one to four
 * threads, hop counts against the sequential BFS, and a graph worked out by hand.
 */
@Timeout(300)
class DeltaSteppingTest extends GraphTestBase {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldMatchTheLdbcExampleAnswers(int threads) throws IOException {
        onLdbcExamples(threads, (kind, g, graph, parallel) -> {
            long source = ldbcSource(kind, "sssp");
            Map<Long, String> want = ldbcExpected(kind, "SSSP");
            ResidentGraph resident = ResidentGraph.read(graph);
            for (double delta : new double[] {0.1, DeltaStepping.suggestedDelta(resident, false), 7}) {
                double[] distance = new DeltaStepping(resident, parallel, delta, false).run(graph.vertexId(source)).distance();
                for (int v = 0; v < distance.length; v++) {
                    long id = VertexLayout.originalId(g.vertices(), v);
                    assertEquals(Double.parseDouble(want.get(id)), distance[v], 1e-12, kind + " vertex " + id + ", delta " + delta);
                }
            }
        });
    }

    @Test
    void shouldAgreeWithDijkstraOnRealWeightedGraphs() {
        try (GraphFile p2p = load("p2p31", shared("snap/p2p-31.e"), ImportOptions.defaults().withWeightColumn(3));
             GraphFile slashdot = load("slashdot", shared("snap/soc-Slashdot0902.txt.gz"), ImportOptions.defaults().withRandomWeights(7))) {
            for (String name : new String[] {"p2p31", "slashdot"}) {
                GraphFile file = name.equals("p2p31") ? p2p : slashdot;
                try (CarafeGraph graph = CarafeGraph.open(rstore, name)) {
                    ResidentGraph resident = ResidentGraph.read(graph);
                    int n = graph.vertexCount();
                    for (int threads : new int[] {1, 2, 4}) {
                        try (Parallel parallel = new Parallel(threads)) {
                            for (double delta : new double[] {0.5, DeltaStepping.suggestedDelta(resident, false), 40, 1e6}) {
                                DeltaStepping search = new DeltaStepping(resident, parallel, delta, false);
                                for (int source : new int[] {0, n / 3}) {
                                    DeltaStepping.Result r = search.run(source);
                                    String at = name + " from " + source + ", delta " + delta + ", " + threads + " threads";
                                    double[] want = References.shortestDistances(file, source);
                                    assertArrayEquals(want, r.distance(), at);
                                    assertEquals(java.util.Arrays.stream(want).filter(d -> d != Double.POSITIVE_INFINITY).count(), r.reached(), at);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldCountHopsWhenAskedToIgnoreWeights() {
        try (GraphFile file = load("p2p31", shared("snap/p2p-31.e"), ImportOptions.defaults().withWeightColumn(3));
             CarafeGraph graph = CarafeGraph.open(rstore, "p2p31"); Parallel parallel = new Parallel(2)) {
            int source = graph.vertexId(1);
            int[] depth = References.bfsDepths(file, source);
            double[] hops = new DeltaStepping(ResidentGraph.read(graph), parallel, 1, true).run(source).distance();
            for (int v = 0; v < depth.length; v++) {
                assertEquals(depth[v] < 0 ? Double.POSITIVE_INFINITY : depth[v], hops[v], "hops to " + v);
            }
        }
    }

    /**
     * <pre>
     *   1 --2--> 2 --1--> 3 --7--> 6        4 --1--> 1        5 (isolated)
     *   |                 ^
     *   +-------5---------+
     * </pre>
     * From 1: d(2)=2, d(3)=3 via 2 (not 5 direct), d(6)=10; 4 and 5 unreachable.
     */
    @Test
    void shouldFindShortestPathsWorkedOutByHandAndRefuseNegativeWeights() throws IOException {
        Path edges = writeHandGraph();
        Path vertices = handVertices();
        Path negative = dir.resolve("neg.e");
        Files.writeString(negative, "1 2 -1\n");
        try (GraphFile g = load("hand", edges, ImportOptions.defaults().withWeightColumn(3).withVerticesFile(vertices));
             GraphFile n = load("neg", negative, ImportOptions.defaults().withWeightColumn(3));
             CarafeGraph hand = CarafeGraph.open(rstore, "hand"); CarafeGraph neg = CarafeGraph.open(rstore, "neg");
             Parallel parallel = new Parallel(2)) {
            double inf = Double.POSITIVE_INFINITY;
            for (double delta : new double[] {1, 3, 100}) {
                DeltaStepping.Result r = new DeltaStepping(ResidentGraph.read(hand), parallel, delta, false).run(0);
                assertArrayEquals(new double[] {0, 2, 3, inf, inf, 10}, r.distance(), "delta " + delta);
                assertEquals(4, r.reached());
            }
            ResidentGraph negatives = ResidentGraph.read(neg);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DeltaStepping(negatives, parallel, 1, false));
            assertTrue(e.getMessage().contains("ImportOptions.weightMap abs or add:X"), e.getMessage());
            assertArrayEquals(new double[] {0, 1}, new DeltaStepping(negatives, parallel, 1, true).run(0).distance(), "hops need no weights");
            IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new DeltaStepping(negatives, parallel, 0, true));
            assertTrue(zero.getMessage().contains("delta must be a positive number, was 0.0"), zero.getMessage());
        }
    }
}

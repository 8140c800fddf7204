package io.carafe.algorithms.online;

import io.carafe.algorithms.GraphTestBase;

import io.carafe.algorithms.references.References;
import io.carafe.graph.CarafeGraph;
import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OnlineAlgorithmsTest extends GraphTestBase {
    private GraphFile importFile(Path file, ImportOptions options) {
        return GraphImporter.importEdgeList(file, options, cacheDir(), null).file();
    }

    /**
     * <pre>
     *   1 --2--> 2 --1--> 3
     *   |                 ^
     *   +-------5---------+      4 --1--> 1      5 (isolated)      3 --7--> 6
     * </pre>
     * From 1: d(2)=2, d(3)=3 via 2 (not 5 direct), d(6)=10, 4 and 5 unreachable.
     */
    @Test
    void shouldFindShortestPathsWorkedOutByHand() throws IOException {
        Path edges = writeHandGraph();
        Path vertices = handVertices();
        try (GraphFile file = importFile(edges, ImportOptions.defaults().withWeightColumn(3).withVerticesFile(vertices));
             CarafeGraph g = CarafeGraph.create(rstore, "hand", file)) {
            Dijkstra.Result r = Dijkstra.run(g, g.vertexId(1));
            assertArrayEquals(new double[] {0, 2, 3, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, 10}, r.distance());
            assertArrayEquals(new int[] {0, 1, 2, 5}, r.path(g.vertexId(6)), "1 -> 2 -> 3 -> 6 as internal ids");
            assertEquals(0, r.path(g.vertexId(5)).length);
            assertEquals(4, r.verticesSettled());
            assertEquals(4, r.edgesExplored(), "edges of 1, 2, 3 and 6");
            Dijkstra.Result early = Dijkstra.run(g, g.vertexId(1), g.vertexId(2));
            assertEquals(2, early.distance()[1]);
            assertEquals(Double.POSITIVE_INFINITY, early.distance()[5], "stops once the target is settled");

            Bfs.Result b = Bfs.run(g, g.vertexId(1));
            assertArrayEquals(new int[] {0, 1, 1, -1, -1, 2}, b.depth());
            assertEquals(4, b.verticesReached());
        }
    }

    @Test
    void shouldRefuseNegativeWeightsWithAClearMessage() throws IOException {
        Path edges = dir.resolve("neg.e");
        Files.writeString(edges, "1 2 -1\n");
        try (GraphFile file = importFile(edges, ImportOptions.defaults().withWeightColumn(3)); CarafeGraph g = CarafeGraph.create(rstore, "neg", file)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dijkstra.run(g, 0));
            assertTrue(e.getMessage().contains("ImportOptions.weightMap abs or add:X"), e.getMessage());
        }
    }

    /**
     * C's {@code printf("%.15e", x)}: the exact binary value rounded to 16 significant digits.
     * (Java's %.15e rounds the shortest decimal instead, printing 0.69 as 6.900000000000000e-01
     * where C prints 6.899999999999999e-01.)
     */
    static String printfE15(double x) {
        if (Double.isInfinite(x)) {
            return x > 0 ? "Infinity" : "-Infinity";
        }
        if (x == 0) {
            return "0.000000000000000e+00";
        }
        java.math.BigDecimal rounded = new java.math.BigDecimal(x).round(new java.math.MathContext(16, java.math.RoundingMode.HALF_EVEN));
        String digits = rounded.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - rounded.scale();
        digits = (digits + "0000000000000000").substring(0, 16);
        return (x < 0 ? "-" : "") + digits.charAt(0) + "." + digits.substring(1)
                + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
    }

    @Test
    void shouldPrintLikeC() {
        assertEquals("6.899999999999999e-01", printfE15(0.69));
        assertEquals("8.300000000000001e-01", printfE15(0.3 + 0.53));
        assertEquals("1.000000000000000e+00", printfE15(1));
        assertEquals("2.410000000000000e+00", printfE15(2.41));
        assertEquals("1.234500000000000e+02", printfE15(123.45));
    }


    @Test
    void shouldMatchTheLdbcExampleSsspAndBfsAnswersExactly() throws IOException {
        for (String kind : List.of("directed", "undirected")) {
            Path base = shared("reference/ldbc-example/example-" + kind + ".e").getParent();
            ImportOptions options = ImportOptions.defaults().withWeightColumn(3).withUndirected(kind.equals("undirected"))
                    .withVerticesFile(base.resolve("example-" + kind + ".v"));
            long source = kind.equals("directed") ? 1 : 2;
            try (GraphFile file = importFile(base.resolve("example-" + kind + ".e"), options);
                 CarafeGraph g = CarafeGraph.create(rstore, "ldbc-" + kind, file)) {
                Map<Long, String> sssp = expected(base.resolve("example-" + kind + "-SSSP"));
                Map<Long, String> bfs = expected(base.resolve("example-" + kind + "-BFS"));
                assertEquals(sssp.size(), g.vertexCount());
                Dijkstra.Result d = Dijkstra.run(g, g.vertexId(source));
                Bfs.Result b = Bfs.run(g, g.vertexId(source));
                for (int v = 0; v < g.vertexCount(); v++) {
                    long id = g.vertex(v).originalId();
                    // the reference is C's %.15e of the exact double: equal in every printed digit
                    assertEquals(sssp.get(id), printfE15(d.distance()[v]), kind + " SSSP of vertex " + id);
                    long wantDepth = Long.parseLong(bfs.get(id));
                    assertEquals(wantDepth == Long.MAX_VALUE ? -1 : wantDepth, b.depth()[v], kind + " BFS of vertex " + id);
                }
            }
        }
    }

    @Test
    void shouldAgreeWithTheVerifierOnARealWeightedGraph() {
        Path edges = shared("snap/p2p-31.e");
        try (GraphFile file = importFile(edges, ImportOptions.defaults().withWeightColumn(3)); CarafeGraph g = CarafeGraph.create(rstore, "p2p31", file)) {
            for (long sourceId : new long[] {1, 1000, 40000}) {
                int source = g.vertexId(sourceId);
                Dijkstra.Result r = Dijkstra.run(g, source);
                double[] want = References.shortestDistances(file, source);
                assertArrayEquals(want, r.distance(), "distances from " + sourceId);
                // every predecessor is a real shortest-path step
                for (int v = 0; v < g.vertexCount(); v++) {
                    if (v != source && r.predecessor()[v] >= 0) {
                        assertTrue(r.distance()[r.predecessor()[v]] < r.distance()[v] || r.distance()[v] == r.distance()[r.predecessor()[v]]);
                    }
                }
            }
        }
    }

    @Test
    void shouldAgreeWithTheVerifierOnRealUnweightedGraphs() {
        try (GraphFile file = importFile(shared("snap/wiki-Vote.txt"), ImportOptions.defaults()); CarafeGraph g = CarafeGraph.create(rstore, "wiki", file)) {
            int source = g.vertexId(30);
            assertArrayEquals(References.bfsDepths(file, source), Bfs.run(g, source).depth());
            double[] hops = References.shortestDistances(file, source);
            assertArrayEquals(hops, Dijkstra.run(g, source).distance(), "unit weights: Dijkstra gives hop counts");
        }
    }
}

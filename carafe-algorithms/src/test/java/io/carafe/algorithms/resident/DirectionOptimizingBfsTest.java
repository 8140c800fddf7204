package io.carafe.algorithms.resident;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.algorithms.online.Bfs;
import io.carafe.algorithms.references.References;
import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeLayout;
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
 * The direction-optimizing BFS against LDBC Graphalytics' expected BFS output, the
 * independent sequential BFS of {@link References} on real graphs from several sources with
 * one to four threads (directed, with in-edges built, and undirected), and the tree it
 * returns checked edge by edge; the real graphs must take both directions.
 */
@Timeout(300)
class DirectionOptimizingBfsTest extends GraphTestBase {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldMatchTheLdbcExampleAnswers(int threads) throws IOException {
        onLdbcExamples(threads, (kind, g, graph, parallel) -> {
            long source = ldbcSource(kind, "bfs");
            int[] depth = new DirectionOptimizingBfs(ResidentGraph.read(graph), parallel).run(graph.vertexId(source)).depth();
            Map<Long, String> want = ldbcExpected(kind, "BFS");
            for (int v = 0; v < depth.length; v++) {
                long id = VertexLayout.originalId(g.vertices(), v);
                assertEquals(Long.parseLong(want.get(id)), depth[v] < 0 ? Long.MAX_VALUE : depth[v], kind + " vertex " + id);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"snap/wiki-Vote.txt", "snap/soc-Slashdot0902.txt.gz", "snap/p2p-Gnutella05.txt", "snap/CA-CondMat.txt"})
    void shouldAgreeWithASequentialBfsAndReturnATree(String file) {
        StringBuilder directionsSeen = new StringBuilder();
        for (boolean undirected : new boolean[] {false, true}) {
            String name = file.replaceAll("\\W", "-") + undirected;
            try (GraphFile g = load(name, shared(file), ImportOptions.defaults().withUndirected(undirected));
                 CarafeGraph graph = CarafeGraph.open(rstore, name)) {
                ResidentGraph resident = ResidentGraph.read(graph);
                int n = graph.vertexCount();
                for (int threads : new int[] {1, 2, 4}) {
                    try (Parallel parallel = new Parallel(threads)) {
                        DirectionOptimizingBfs search = new DirectionOptimizingBfs(resident, parallel);
                        // the vertex with most out-edges, and two fixed others
                        int hub = 0;
                        for (int v = 0; v < n; v++) {
                            hub = VertexLayout.degree(g.vertices(), v) > VertexLayout.degree(g.vertices(), hub) ? v : hub;
                        }
                        for (int source : new int[] {hub, 0, n / 2}) {
                            Bfs.Result r = search.run(source);
                            String at = file + (undirected ? " undirected" : " directed") + " from " + source + " with " + threads + " threads";
                            int[] want = References.bfsDepths(g, source);
                            assertArrayEquals(want, r.depth(), at);
                            assertEquals(java.util.Arrays.stream(want).filter(d -> d >= 0).count(), r.verticesReached(), at);
                            checkTree(g, r, at);
                            directionsSeen.append(search.directions()).append(' ');
                        }
                    }
                }
            }
        }
        assertTrue(directionsSeen.indexOf("B") >= 0 && directionsSeen.indexOf("T") >= 0, "both directions ran: " + directionsSeen);
    }

    /** Every reached vertex but the source has a parent one level up with an edge to it; the source and the unreached have none. */
    private static void checkTree(GraphFile g, Bfs.Result r, String at) {
        for (int v = 0; v < r.depth().length; v++) {
            int p = r.parent()[v];
            if (v == r.source() || r.depth()[v] < 0) {
                assertEquals(-1, p, "parent of " + v + ", " + at);
                continue;
            }
            assertEquals(r.depth()[v] - 1, r.depth()[p], "depth of " + v + "'s parent " + p + ", " + at);
            boolean edge = false;
            long first = VertexLayout.firstEdge(g.vertices(), p);
            for (long e = first; e < first + VertexLayout.degree(g.vertices(), p) && !edge; e++) {
                edge = EdgeLayout.target(g.edges(), e) == v;
            }
            assertTrue(edge, "no edge " + p + " -> " + v + ", " + at);
        }
    }

    @Test
    void shouldRefuseASourceOutsideTheGraph() throws IOException {
        Path edges = dir.resolve("two.e");
        Files.writeString(edges, "1 2\n");
        try (GraphFile g = load("two", edges, ImportOptions.defaults()); CarafeGraph graph = CarafeGraph.open(rstore, "two");
             Parallel parallel = new Parallel(2)) {
            DirectionOptimizingBfs search = new DirectionOptimizingBfs(ResidentGraph.read(graph), parallel);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> search.run(2));
            assertTrue(e.getMessage().contains("source 2 is not a vertex of 'two'"), e.getMessage());
            assertArrayEquals(new int[] {-1, 0}, search.run(1).depth(), "2 has no out-edges");
        }
    }
}

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
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The pull PageRank against LDBC Graphalytics' expected PR output and against plain power
 * iteration ({@link References#pageRank}, pushing along out-edges) on real graphs, spread and
 * dropped dangling rank; the same bits with one to four threads; the tolerance stop.
 */
@Timeout(300)
class PullPageRankTest extends GraphTestBase {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldMatchTheLdbcExampleAnswers(int threads) throws IOException {
        onLdbcExamples(threads, (kind, g, graph, parallel) -> {
            // the examples' .properties: damping 0.85, 2 iterations
            double[] rank = new PullPageRank(ResidentGraph.read(graph), parallel).run(0.85, 2, 0, false).rank();
            Map<Long, String> want = ldbcExpected(kind, "PR");
            for (int v = 0; v < rank.length; v++) {
                long id = VertexLayout.originalId(g.vertices(), v);
                assertEquals(Double.parseDouble(want.get(id)), rank[v], 1e-12, kind + " vertex " + id + " with " + threads + " threads");
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"snap/wiki-Vote.txt", "snap/soc-Slashdot0902.txt.gz", "snap/p2p-Gnutella05.txt"})
    void shouldAgreeWithPowerIterationAndGiveTheSameBitsOnAnyThreads(String file) {
        for (boolean undirected : new boolean[] {false, true}) {
            String name = file.replaceAll("\\W", "-") + undirected;
            try (GraphFile g = load(name, shared(file), ImportOptions.defaults().withUndirected(undirected));
                 CarafeGraph graph = CarafeGraph.open(rstore, name)) {
                ResidentGraph resident = ResidentGraph.read(graph);
                for (boolean drop : new boolean[] {false, true}) {
                    double[] want = References.pageRank(g, 0.85, 20, drop);
                    double[] first = null;
                    for (int threads : new int[] {1, 2, 4}) {
                        try (Parallel parallel = new Parallel(threads)) {
                            PullPageRank.Result r = new PullPageRank(resident, parallel).run(0.85, 20, 0, drop);
                            String at = file + (undirected ? " undirected" : " directed") + (drop ? ", dangling dropped" : "") + ", " + threads + " threads";
                            assertEquals(20, r.iterations(), at);
                            assertArrayEquals(want, r.rank(), 1e-12, at);
                            if (first == null) {
                                first = r.rank();
                            } else {
                                assertArrayEquals(first, r.rank(), 0.0, "the same bits as with one thread: " + at);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void shouldStopAtTheToleranceAndRefuseBadParameters() {
        try (GraphFile g = load("wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults());
             CarafeGraph graph = CarafeGraph.open(rstore, "wiki"); Parallel parallel = new Parallel(2)) {
            PullPageRank pageRank = new PullPageRank(ResidentGraph.read(graph), parallel);
            PullPageRank.Result r = pageRank.run(0.85, 100, 1e-9, false);
            assertTrue(r.iterations() < 100 && r.residual() < 1e-9, r.iterations() + " iterations, residual " + r.residual());
            assertArrayEquals(References.pageRank(g, 0.85, r.iterations(), false), r.rank(), 1e-12);
            PullPageRank.Result oneShort = pageRank.run(0.85, r.iterations() - 1, 0, false);
            assertTrue(oneShort.residual() >= 1e-9, "the iteration before was not yet below the tolerance: " + oneShort.residual());
            assertThrows(IllegalArgumentException.class, () -> pageRank.run(1.5, 10, 0, false));
            assertThrows(IllegalArgumentException.class, () -> pageRank.run(0.85, 0, 0, false));
        }
    }
}

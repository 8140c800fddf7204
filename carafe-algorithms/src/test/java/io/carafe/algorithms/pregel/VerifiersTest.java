package io.carafe.algorithms.pregel;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.algorithms.references.Verdict;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Map;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each algorithm's verifier (what --verify runs) on LDBC Graphalytics' directed example:
 * LDBC's own expected outputs, which share nothing with our code, pass; the same outputs
 * with one vertex's value changed fail, and the verdict names that vertex.
 */
class VerifiersTest extends GraphTestBase {
    private static final String KIND = "directed";

    @Test
    void shouldPassLdbcsAnswersAndNameTheVertexThatDiffers() throws IOException {
        try (GraphFile g = loadLdbcExample(KIND)) {
            int n = (int) g.header().vertexCount();
            IntFunction<String> name = v -> "#" + v;
            int changed = n / 2;

            long[] wcc = longs(g, ldbcExpected(KIND, "WCC"));
            check(ConnectedComponents.verify(g, wcc, name));
            wcc[changed] += 100;
            refuted(ConnectedComponents.verify(g, wcc, name), "#" + changed);

            long[] cdlp = longs(g, ldbcExpected(KIND, "CDLP"));
            check(new LabelPropagation(2).verify(g, cdlp, name));
            cdlp[changed] += 100;
            refuted(new LabelPropagation(2).verify(g, cdlp, name), "#" + changed);

            double[] lcc = doubles(g, ldbcExpected(KIND, "LCC"));
            check(Triangles.verifyCoefficients(g, lcc, name));
            lcc[changed] += 1e-6;
            refuted(Triangles.verifyCoefficients(g, lcc, name), "#" + changed);

            int source = g.vertexId(ldbcSource(KIND, "sssp"));
            double[] sssp = doubles(g, ldbcExpected(KIND, "SSSP"));
            check(ShortestPaths.verify(g, source, sssp, name));
            int reached = firstReachedBesides(sssp, source);
            check(ShortestPaths.verifyOne(g, source, reached, sssp[reached], name));
            sssp[reached] += 1;
            refuted(ShortestPaths.verify(g, source, sssp, name), "#" + reached);
            refuted(ShortestPaths.verifyOne(g, source, reached, sssp[reached], name), "#" + reached);

            int bfsSource = g.vertexId(ldbcSource(KIND, "bfs"));
            int[] depth = new int[n];
            Map<Long, String> bfs = ldbcExpected(KIND, "BFS");
            for (int v = 0; v < n; v++) {
                long d = Long.parseLong(bfs.get(originalId(g, v)));
                depth[v] = d == Long.MAX_VALUE ? -1 : (int) d; // LDBC's unreached: the largest long
            }
            check(BreadthFirstSearch.verify(g, bfsSource, depth, name));
            depth[changed] = depth[changed] < 0 ? 7 : -1;
            refuted(BreadthFirstSearch.verify(g, bfsSource, depth, name), "#" + changed);

            double[] ranks = doubles(g, ldbcExpected(KIND, "PR"));
            PageRank pageRank = new PageRank(0.85, 2, 0, false);
            double worst = pageRank.largestDifference(g, ranks, 2);
            assertTrue(worst < 1e-12, "LDBC's ranks (15 digits) against power iteration: " + worst);
            check(PageRank.verdict(worst));
            ranks[changed] += 1e-8;
            assertFalse(PageRank.verdict(pageRank.largestDifference(g, ranks, 2)).agrees(), "a rank off by 1e-8 fails");
        }
    }

    private static void check(Verdict verdict) {
        assertTrue(verdict.agrees(), verdict.line());
        assertTrue(verdict.line().startsWith("verify: OK ("), verdict.line());
    }

    private static void refuted(Verdict verdict, String vertex) {
        assertFalse(verdict.agrees(), verdict.line());
        assertTrue(verdict.line().startsWith("verify: FAILED (vertex " + vertex + ":"), verdict.line());
    }

    private static int firstReachedBesides(double[] distance, int source) {
        for (int v = 0; v < distance.length; v++) {
            if (v != source && !Double.isInfinite(distance[v])) {
                return v;
            }
        }
        throw new AssertionError("the example reaches nothing from its source");
    }

    private static long originalId(GraphFile g, int v) {
        return VertexLayout.originalId(g.vertices(), v);
    }

    private static long[] longs(GraphFile g, Map<Long, String> values) {
        long[] out = new long[(int) g.header().vertexCount()];
        for (int v = 0; v < out.length; v++) {
            out[v] = Long.parseLong(values.get(originalId(g, v)));
        }
        return out;
    }

    private static double[] doubles(GraphFile g, Map<Long, String> values) {
        double[] out = new double[(int) g.header().vertexCount()];
        for (int v = 0; v < out.length; v++) {
            out[v] = Double.parseDouble(values.get(originalId(g, v)));
        }
        return out;
    }
}

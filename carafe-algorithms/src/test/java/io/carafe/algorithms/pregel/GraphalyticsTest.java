package io.carafe.algorithms.pregel;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.algorithms.references.References;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.ImportOptions;
import io.carafe.pregel.PregelJob;
import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CDLP, LCC, triangles and SCC: LDBC Graphalytics' expected outputs on its two example
 * graphs, SNAP's published figures, and the independent {@link References} on real graphs
 * with one to three workers.
 */
@Timeout(300)
class GraphalyticsTest extends GraphTestBase {


    private PregelJob.Result run(String graph, VertexProgram program, int workers) {
        return PregelJob.run(rstore, graph, program, PregelJob.Options.defaults(workers));
    }

    private long[] longs(String graph, VertexProgram program, int workers, long offset) {
        try (PregelJob.Result r = run(graph, program, workers)) {
            return r.longs(offset);
        }
    }

    private double[] doubles(String graph, VertexProgram program, int workers, long offset) {
        try (PregelJob.Result r = run(graph, program, workers)) {
            return r.doubles(offset);
        }
    }


    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldMatchTheLdbcExampleAnswersForCdlpAndLcc(int workers) throws IOException {
        for (String kind : new String[] {"directed", "undirected"}) {
            Path base = shared("reference/ldbc-example/example-" + kind + ".e").getParent();
            ImportOptions options = ImportOptions.defaults().withWeightColumn(3).withUndirected(kind.equals("undirected"))
                    .withVerticesFile(base.resolve("example-" + kind + ".v"));
            String name = "ldbc-" + kind + "-" + workers;
            try (GraphFile g = load(name, base.resolve("example-" + kind + ".e"), options)) {
                long[] cdlp = longs(name, new LabelPropagation(2), workers, 0);
                double[] lcc = doubles(name, new Triangles(true), workers, Triangles.LCC);
                Map<Long, String> wantCdlp = expected(base.resolve("example-" + kind + "-CDLP"));
                Map<Long, String> wantLcc = expected(base.resolve("example-" + kind + "-LCC"));
                for (int v = 0; v < cdlp.length; v++) {
                    long id = VertexLayout.originalId(g.vertices(), v);
                    String at = kind + " vertex " + id + " with " + workers + " workers";
                    assertEquals(Long.parseLong(wantCdlp.get(id)), cdlp[v], "CDLP of " + at);
                    double want = Double.parseDouble(wantLcc.get(id));
                    assertEquals(want, lcc[v], 1e-12 * Math.max(1, Math.abs(want)), "LCC of " + at);
                }
            }
        }
    }

    /**
     * One Triangles object for three jobs on two graphs, as a caller may keep one: each
     * job's workers orient their own graph, whatever thread ran an earlier job's worker.
     */
    @Test
    void shouldCountTheTrianglesOfEachJobWithOneProgramObject() {
        Triangles one = new Triangles(false);
        try (GraphFile wiki = load("reuse-wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults());
             GraphFile eu = load("reuse-eu", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            assertArrayEquals(References.triangles(wiki), longs("reuse-wiki", one, 2, Triangles.COUNT), "wiki-Vote");
            assertArrayEquals(References.triangles(eu), longs("reuse-eu", one, 2, Triangles.COUNT), "email-Eu-core after wiki-Vote");
            assertArrayEquals(References.triangles(wiki), longs("reuse-wiki", one, 3, Triangles.COUNT), "wiki-Vote again, three workers");
        }
    }

    @ParameterizedTest
    @CsvSource({"snap/wiki-Vote.txt, 608389, 1300, 1", "snap/wiki-Vote.txt, 608389, 1300, 2", "snap/wiki-Vote.txt, 608389, 1300, 3",
            "snap/email-Eu-core.txt.gz, 105461, 803, 1", "snap/email-Eu-core.txt.gz, 105461, 803, 2", "snap/email-Eu-core.txt.gz, 105461, 803, 3",
            "snap/p2p-Gnutella05.txt, -1, -1, 1", "snap/p2p-Gnutella05.txt, -1, -1, 2", "snap/p2p-Gnutella05.txt, -1, -1, 3"})
    void shouldAgreeWithTheReferencesAndSnapsFigures(String file, long snapTriangles, long snapLargestScc, int workers) {
        String name = file.replaceAll("\\W", "-") + workers;
        try (GraphFile g = load(name, shared(file), ImportOptions.defaults())) {
            long[] triangles = longs(name, new Triangles(false), workers, Triangles.COUNT);
            assertArrayEquals(References.triangles(g), triangles, "triangles per vertex");
            if (snapTriangles >= 0) {
                assertEquals(snapTriangles, Arrays.stream(triangles).sum() / 3, "SNAP's triangle count of " + file);
            }
            double[] lcc = doubles(name, new Triangles(true), workers, Triangles.LCC);
            double[] wantLcc = References.clusteringCoefficients(g);
            for (int v = 0; v < lcc.length; v++) {
                assertEquals(wantLcc[v], lcc[v], 1e-12, "LCC of vertex " + v);
            }
            long[] scc = longs(name, new StronglyConnectedComponents(), workers, StronglyConnectedComponents.COMPONENT);
            assertArrayEquals(References.strongComponents(g), scc, "SCC labels");
            if (snapLargestScc >= 0) {
                assertEquals(snapLargestScc, largestGroup(scc), "SNAP's largest SCC of " + file);
            }
            assertArrayEquals(References.labelPropagation(g, 5), longs(name, new LabelPropagation(5), workers, 0), "CDLP labels");
            assertArrayEquals(References.weakComponents(g), longs(name, new ConnectedComponents(), workers, 0), "WCC labels");
            assertArrayEquals(References.weakComponents(g), longs(name, new AfforestComponents(), workers, 0), "WCC labels by hooking");
            double[] pr = doubles(name, new PageRank(0.85, 10, 0, false), workers, 0);
            assertArrayEquals(References.pageRank(g, 0.85, 10, false), pr, 1e-12, "PageRank");
            int source = 1;
            int[] depth = io.carafe.algorithms.references.References.bfsDepths(g, source);
            long[] bfs = longs(name, new BreadthFirstSearch(source), workers, 0);
            for (int v = 0; v < depth.length; v++) {
                assertEquals(depth[v] < 0 ? BreadthFirstSearch.UNREACHED : depth[v], bfs[v], "BFS depth of vertex " + v);
            }
            assertArrayEquals(io.carafe.algorithms.references.References.shortestDistances(g, source),
                    doubles(name, new ShortestPaths(source), workers, 0), "SSSP distances");
        }
    }

    private static long largestGroup(long[] labels) {
        Map<Long, Integer> sizes = new HashMap<>();
        for (long l : labels) {
            sizes.merge(l, 1, Integer::sum);
        }
        return sizes.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }
}

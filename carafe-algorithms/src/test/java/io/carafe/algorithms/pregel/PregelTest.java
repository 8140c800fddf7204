package io.carafe.algorithms.pregel;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.algorithms.online.Dijkstra;
import io.carafe.algorithms.references.References;
import io.carafe.graph.CarafeGraph;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.ImportOptions;
import io.carafe.pregel.Combiner;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.DoubleCombiner;
import io.carafe.pregel.ForwardingVertexProgram;
import io.carafe.pregel.LongCombiner;
import io.carafe.pregel.Messaging;
import io.carafe.pregel.PregelException;
import io.carafe.pregel.PregelJob;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class PregelTest extends GraphTestBase {
    private static final FileTime LONG_AGO = FileTime.fromMillis(978_307_200_000L); // 2001-01-01

    private PregelJob.Result run(String graph, VertexProgram program, int workers) {
        return PregelJob.run(rstore, graph, program, PregelJob.Options.defaults(workers));
    }

    private PregelJob.Result run(String graph, VertexProgram program, int workers, Messaging messaging) {
        PregelJob.Result r = PregelJob.run(rstore, graph, program, PregelJob.Options.defaults(workers).withMessaging(messaging));
        assertEquals(messaging, r.messaging());
        return r;
    }

    /** Every vertex's value as a double, and the job deleted. */
    static double[] doubles(PregelJob.Result r) {
        try (r) {
            return r.doubles(0);
        }
    }

    static long[] longs(PregelJob.Result r) {
        try (r) {
            return r.longs(0);
        }
    }


    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void shouldMatchTheLdbcExampleAnswers(int workers) throws IOException {
        for (String kind : new String[] {"directed", "undirected"}) {
            Path base = shared("reference/ldbc-example/example-" + kind + ".e").getParent();
            ImportOptions options = ImportOptions.defaults().withWeightColumn(3).withUndirected(kind.equals("undirected"))
                    .withVerticesFile(base.resolve("example-" + kind + ".v"));
            String name = "ldbc-" + kind + "-" + workers;
            try (GraphFile g = load(name, base.resolve("example-" + kind + ".e"), options)) {
                int n = (int) g.header().vertexCount();
                long source = kind.equals("directed") ? 1 : 2;
                int sourceId = g.vertexId(source);
                double[] pr = doubles(run(name, new PageRank(0.85, 2, 0, false), workers, Messaging.GATHER));
                double[] prPushed = doubles(run(name, new PageRank(0.85, 2, 0, false), workers, Messaging.PUSH));
                double[] prHybrid = doubles(run(name, new PageRank(0.85, 2, 0, false), workers, Messaging.HYBRID));
                long[] bfs = longs(run(name, new BreadthFirstSearch(sourceId), workers));
                double[] sssp = doubles(run(name, new ShortestPaths(sourceId), workers));
                Map<Long, String> wantPr = expected(base.resolve("example-" + kind + "-PR"));
                Map<Long, String> wantBfs = expected(base.resolve("example-" + kind + "-BFS"));
                Map<Long, String> wantSssp = expected(base.resolve("example-" + kind + "-SSSP"));
                for (int v = 0; v < n; v++) {
                    long id = VertexLayout.originalId(g.vertices(), v);
                    String at = kind + " vertex " + id + " with " + workers + " workers";
                    assertEquals(Double.parseDouble(wantPr.get(id)), pr[v], 1e-12, "PageRank (gathered) of " + at);
                    assertEquals(Double.parseDouble(wantPr.get(id)), prPushed[v], 1e-12, "PageRank (pushed) of " + at);
                    assertEquals(Double.parseDouble(wantPr.get(id)), prHybrid[v], 1e-12, "PageRank (hybrid) of " + at);
                    assertEquals(Long.parseLong(wantBfs.get(id)), bfs[v], "BFS of " + at);
                    assertEquals(Double.parseDouble(wantSssp.get(id)), sssp[v], 1e-12, "SSSP of " + at);
                }
            }
            // weakly connected components ignore direction: import with both directions
            String wccName = "ldbc-wcc-" + kind + "-" + workers;
            try (GraphFile g = load(wccName, base.resolve("example-" + kind + ".e"), options.withUndirected(true))) {
                long[] wcc = longs(run(wccName, new ConnectedComponents(), workers));
                long[] hooked = longs(run(wccName, new AfforestComponents(), workers));
                Map<Long, String> want = expected(base.resolve("example-" + kind + "-WCC"));
                for (int v = 0; v < wcc.length; v++) {
                    assertEquals(Long.parseLong(want.get(VertexLayout.originalId(g.vertices(), v))), wcc[v], "WCC of " + kind + " vertex " + v);
                    assertEquals(Long.parseLong(want.get(VertexLayout.originalId(g.vertices(), v))), hooked[v],
                            "WCC (hooking) of " + kind + " vertex " + v);
                }
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"1, GATHER", "2, GATHER", "4, GATHER", "1, PUSH", "2, PUSH", "4, PUSH", "2, HYBRID", "3, HYBRID"})
    void shouldMatchPowerIterationOnARealGraph(int workers, Messaging messaging) {
        String name = "wiki-" + workers + "-" + messaging;
        try (GraphFile g = load(name, shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            PregelJob.Result r = run(name, new PageRank(0.85, 20, 0, false), workers, messaging);
            double[] got = doubles(r);
            double[] want = References.pageRank(g, 0.85, 20, false);
            for (int v = 0; v < want.length; v++) {
                assertEquals(want[v], got[v], 1e-9, "vertex " + v);
            }
            double sum = 0;
            for (double x : got) {
                sum += x;
            }
            assertEquals(1.0, sum, 1e-9, "dangling rank is spread, so ranks sum to 1");
            assertEquals(21, r.supersteps().size(), "superstep 0 initialises, 1..20 update");
            assertEquals(workers, r.partitioning().partitions());
        }
    }

    @Test
    void shouldStopWhenTheChangeFallsBelowTheTolerance() {
        try (GraphFile g = load("slashdot", shared("snap/soc-Slashdot0902.txt.gz"), ImportOptions.defaults())) {
            PregelJob.Result r = run("slashdot", new PageRank(0.85, 100, 1e-6, false), 2);
            double[] got = doubles(r);
            int updates = r.supersteps().size() - 1;
            assertTrue(updates < 100, "converged before the bound: " + updates);
            assertTrue(PageRank.residual(r.supersteps().getLast().aggregates()) < 1e-6);
            assertTrue(PageRank.residual(r.supersteps().get(r.supersteps().size() - 2).aggregates()) >= 1e-6, "stopped at the first superstep under tolerance");
            double[] want = References.pageRank(g, 0.85, updates, false);
            for (int v = 0; v < want.length; v++) {
                assertEquals(want[v], got[v], 1e-9, "vertex " + v);
            }
        }
    }

    @Test
    void shouldAgreeWithDijkstraAndFindSnapsLargestWeakComponent() {
        try (GraphFile g = load("p2p31", shared("snap/p2p-31.e"), ImportOptions.defaults().withWeightColumn(3));
             CarafeGraph online = CarafeGraph.open(rstore, "p2p31")) {
            int source = online.vertexId(1);
            double[] pregel = doubles(run("p2p31", new ShortestPaths(source), 2));
            assertArrayEquals(Dijkstra.run(online, source).distance(), pregel);
        }
        try (GraphFile g = load("wiki-wcc", shared("snap/wiki-Vote.txt"), ImportOptions.defaults().withUndirected(true))) {
            long[] labels = longs(run("wiki-wcc", new ConnectedComponents(), 2));
            Map<Long, Integer> sizes = new HashMap<>();
            for (long label : labels) {
                sizes.merge(label, 1, Integer::sum);
            }
            assertEquals(7_066, sizes.values().stream().mapToInt(Integer::intValue).max().orElseThrow(), "SNAP: largest WCC of wiki-Vote");
        }
    }

    /** A test program that may gather: it sends only with sendToOutNeighbours, combined by {@code combiner}. */
    abstract static class Broadcasting implements VertexProgram {
        private final DoubleCombiner combiner;

        Broadcasting(DoubleCombiner combiner) {
            this.combiner = combiner;
        }

        @Override
        public Declaration declaration() {
            return Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, combiner).sendingAlongOutEdges();
        }

    }

    /** Calls {@code edge} with (source, target) for every edge of the graph file. */
    private static void forEachEdge(GraphFile g, java.util.function.BiConsumer<Integer, Integer> edge) {
        for (int s = 0; s < g.header().vertexCount(); s++) {
            long begin = VertexLayout.firstEdge(g.vertices(), s);
            for (long e = begin; e < begin + VertexLayout.degree(g.vertices(), s); e++) {
                edge.accept(s, io.carafe.graph.EdgeLayout.target(g.edges(), e));
            }
        }
    }

    /**
     * Gathering when only some vertices send: slots that sent nothing must neither count
     * as messages nor leak last superstep's values. Vertices divisible by 3 send their id
     * in superstep 0, those divisible by 5 their id + 0.5 in superstep 1; each vertex
     * records the minimum it got each time (-1 for none).
     */
    static final class SomeSend extends Broadcasting {
        private final int first;
        private final int second;

        /** Vertices divisible by {@code first} send in superstep 0, by {@code second} in superstep 1. */
        SomeSend(int first, int second) {
            super(DoubleCombiner.MIN);
            this.first = first;
            this.second = second;
        }

        @Override
        public void compute(Context ctx) {
            int v = ctx.vertex();
            double got = ctx.hasMessages() ? ctx.message().getDouble(0) : -1;
            if (ctx.superstep() == 0) {
                if (v % first == 0) {
                    ctx.sendToOutNeighbours((double) v);
                }
            } else if (ctx.superstep() == 1) {
                ctx.value().setDouble(0, got * 1e7);
                if (v % second == 0) {
                    ctx.sendToOutNeighbours(v + 0.5);
                }
            } else {
                ctx.value().setDouble(0, ctx.value().getDouble(0) + got);
                ctx.voteToHalt();
            }
        }
    }

    /**
     * With many senders (every third vertex, then every fifth) a hybrid job gathers both
     * supersteps; with few (every 401st, every 397th: along fewer than a hundredth of a
     * partition's edges) it pushes both: either way the same
     * minima as the edge list gives.
     */
    @ParameterizedTest
    @CsvSource({"3, 5, 3", "401, 397, 0"})
    void shouldGatherOnlyWhatWasSent(int firstDivisor, int secondDivisor, int densePartitions) {
        try (GraphFile g = load("wiki-some", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            double[] first = new double[n];
            double[] second = new double[n];
            java.util.Arrays.fill(first, Double.POSITIVE_INFINITY);
            java.util.Arrays.fill(second, Double.POSITIVE_INFINITY);
            forEachEdge(g, (s, t) -> {
                if (s % firstDivisor == 0) {
                    first[t] = Math.min(first[t], s);
                }
                if (s % secondDivisor == 0) {
                    second[t] = Math.min(second[t], s + 0.5);
                }
            });
            double[] want = new double[n];
            for (int v = 0; v < n; v++) {
                want[v] = (first[v] == Double.POSITIVE_INFINITY ? -1 : first[v]) * 1e7 + (second[v] == Double.POSITIVE_INFINITY ? -1 : second[v]);
            }
            SomeSend program = new SomeSend(firstDivisor, secondDivisor);
            assertArrayEquals(want, doubles(run("wiki-some", program, 3, Messaging.GATHER)));
            assertArrayEquals(want, doubles(run("wiki-some", program, 3, Messaging.PUSH)));
            PregelJob.Result hybrid = run("wiki-some", program, 3, Messaging.HYBRID);
            for (int k = 0; k < 2; k++) {
                assertEquals(densePartitions, hybrid.supersteps().get(k).densePartitions(), "partitions that gathered in superstep " + k);
            }
            assertArrayEquals(want, doubles(hybrid));
            try (PregelJob.Result auto = run("wiki-some", program, 2)) {
                assertEquals(Messaging.HYBRID, auto.messaging(), "auto is hybrid when the program allows it");
            }
        }
    }

    /** BFS as a program that takes every message: what the engine does without {@link Declaration#accepting}. */
    record TakingEveryMessage(BreadthFirstSearch bfs) implements VertexProgram {
        @Override
        public void compute(Context ctx) {
            bfs.compute(ctx);
        }

        @Override
        public Declaration declaration() {
            return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges(); // no accepting
        }

        @Override
        public int[] startVertices() {
            return bfs.startVertices();
        }

        @Override
        public void initialValue(RecordView value) {
            bfs.initialValue(value);
        }
    }

    /**
     * Hybrid BFS on SNAP graphs against References' sequential BFS, from three sources, on 1
     * to 3 workers. Each superstep k must compute exactly the vertices counted from the
     * reference's levels, however each partition sent: the source alone in superstep 0
     * (the program's start vertex; the others start unreached), the vertices of level k for BFS,
     * which accepts messages only where unreached, and every out-neighbour of level k - 1
     * for the same program taking every message. Across the runs every kind of superstep
     * occurs: all pushed, all gathered, and gathered by some partitions while others pushed.
     */
    @Test
    void shouldChoosePushOrGatherPerSuperstepAndMatchASequentialBfs() {
        boolean[] seen = new boolean[3]; // pushed, gathered, mixed
        String[][] graphs = {{"wiki-hybrid", "snap/wiki-Vote.txt"}, {"eu-hybrid", "snap/email-Eu-core.txt.gz"},
                {"slashdot-hybrid", "snap/soc-Slashdot0902.txt.gz"}};
        for (String[] graph : graphs) {
            try (GraphFile g = load(graph[0], shared(graph[1]), ImportOptions.defaults())) {
                int n = (int) g.header().vertexCount();
                for (int source : new int[] {0, n / 2, n - 1}) {
                    int[] depth = References.bfsDepths(g, source);
                    for (int workers = 1; workers <= 3; workers++) {
                        for (boolean everyMessage : new boolean[] {false, true}) {
                            String at = graph[0] + " from " + source + " on " + workers + " workers" + (everyMessage ? ", taking every message" : "");
                            VertexProgram program = everyMessage ? new TakingEveryMessage(new BreadthFirstSearch(source)) : new BreadthFirstSearch(source);
                            PregelJob.Result r = run(graph[0], program, workers, Messaging.HYBRID);
                            for (PregelJob.Superstep step : r.supersteps()) {
                                int k = (int) step.index();
                                boolean[] computes = new boolean[n];
                                if (everyMessage) {
                                    forEachEdge(g, (s, t) -> computes[t] |= depth[s] == k - 1);
                                } else {
                                    for (int v = 0; v < n; v++) {
                                        computes[v] = depth[v] == k;
                                    }
                                }
                                // superstep 0 computes the source alone (startVertices), whatever the program takes
                                long expected = k == 0 ? 1 : java.util.stream.IntStream.range(0, n).filter(v -> computes[v]).count();
                                assertEquals(expected, step.computedVertices(), "vertices computed in superstep " + k + ", " + at);
                                int dense = step.densePartitions();
                                if (step.messages() > 0) {
                                    seen[dense == 0 ? 0 : dense == workers ? 1 : 2] = true;
                                }
                            }
                            long[] got = longs(r);
                            for (int v = 0; v < n; v++) {
                                assertEquals(depth[v] < 0 ? BreadthFirstSearch.UNREACHED : depth[v], got[v], "level of vertex " + v + ", " + at);
                            }
                        }
                    }
                }
            }
        }
        assertTrue(seen[0] && seen[1] && seen[2], "pushed, gathered and mixed supersteps all occurred: " + java.util.Arrays.toString(seen));
    }

    /** Every vertex counts five supersteps in its value and sends nothing. */
    static final class CountingSupersteps implements VertexProgram {
        @Override
        public Declaration declaration() {
            return Declaration.values(RecordLayout.LONG);
        }

        @Override
        public void compute(Context ctx) {
            ctx.value().setLong(0, ctx.value().getLong(0) + 1);
            if (ctx.superstep() == 4) {
                ctx.voteToHalt();
            }
        }
    }

    /**
     * A program that reads no other vertex's values has nobody read them before the job
     * ends, so its supersteps move no values, however many vertices compute: a program
     * that counts five supersteps at every vertex of wiki-Vote and sends nothing moves at
     * most 4 KiB of headers a superstep after the first (the words it computed would be the
     * whole array, 8 bytes a vertex), and every value reads 5 after the job. BFS, whose
     * superstep 0 sets every value and whose later ones set a level each, ends with every
     * level in RStore too. (Superstep 0 reads the partition's window of edges.)
     */
    @Test
    void shouldMoveNoValuesInSuperstepsWhenNobodyReadsThemAndWriteThemAtTheEnd() {
        try (GraphFile g = load("wiki-words", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            for (int workers = 1; workers <= 2; workers++) {
                try (PregelJob.Result r = run("wiki-words", new CountingSupersteps(), workers, Messaging.PUSH)) {
                    List<PregelJob.Superstep> steps = r.supersteps();
                    assertEquals(5, steps.size(), "five supersteps");
                    for (int k = 1; k < steps.size(); k++) {
                        assertTrue(steps.get(k).bytesMoved() <= 4096L * workers, "superstep " + k + " moved " + steps.get(k).bytesMoved()
                                + " bytes; its values are " + 8L * n);
                    }
                    long[] got = r.longs(0);
                    for (int v = 0; v < n; v++) {
                        assertEquals(5, got[v], "supersteps counted at vertex " + v);
                    }
                }
            }
            int[] depth = References.bfsDepths(g, 0);
            try (PregelJob.Result r = run("wiki-words", new BreadthFirstSearch(0), 2, Messaging.PUSH)) {
                long[] got = r.longs(0);
                for (int v = 0; v < n; v++) {
                    assertEquals(depth[v] < 0 ? BreadthFirstSearch.UNREACHED : depth[v], got[v], "level of vertex " + v);
                }
            }
        }
    }

    /**
     * Label propagation (ConnectedComponents, one sendToAllNeighbours a superstep) against
     * the sequential union-find of References, on graphs imported directed (heard along in-
     * and out-edges) and undirected, 1 to 3 workers, every way messages may travel; a
     * hybrid job both gathers (superstep 0: every vertex sends) and pushes (the last ones).
     */
    @ParameterizedTest
    @CsvSource({"PUSH, false", "GATHER, false", "HYBRID, false", "PUSH, true", "GATHER, true", "HYBRID, true"})
    void shouldFindWeakComponentsAlongEveryEdgeHoweverMessagesTravel(Messaging messaging, boolean undirected) {
        String[][] graphs = {{"wiki-wcc", "snap/wiki-Vote.txt"}, {"eu-wcc", "snap/email-Eu-core.txt.gz"}, {"p2p-wcc", "snap/p2p-31.e"}};
        for (String[] graph : graphs) {
            String name = graph[0] + (undirected ? "-u" : "-d");
            try (GraphFile g = load(name, shared(graph[1]), ImportOptions.defaults().withUndirected(undirected))) {
                long[] want = References.weakComponents(g);
                for (int workers = 1; workers <= 3; workers++) {
                    PregelJob.Result r = run(name, new ConnectedComponents(), workers, messaging);
                    if (messaging == Messaging.HYBRID) {
                        assertEquals(workers, r.supersteps().getFirst().densePartitions(), "every vertex sends first: gathered, " + name);
                        assertTrue(r.supersteps().stream().anyMatch(step -> step.messages() > 0 && step.densePartitions() == 0),
                                "some superstep pushed, " + name);
                    }
                    assertArrayEquals(want, longs(r), name + " on " + workers + " workers");
                }
            }
        }
    }

    /**
     * Bellman-Ford (ShortestPaths: the engine adds each edge's weight to the distance sent)
     * against References' Dijkstra on p2p-31's weights, Slashdot with random weights 1-255
     * and wiki-Vote unweighted (hops), from two sources, 1 to 3 workers, pushed, gathered
     * along in-edges with their weights, and hybrid (which both gathers and pushes on
     * Slashdot): the same distances, bit for bit.
     */
    @ParameterizedTest
    @CsvSource({"PUSH", "GATHER", "HYBRID"})
    void shouldRelaxAlongWeightedEdgesHoweverMessagesTravel(Messaging messaging) {
        Object[][] graphs = {{"p2p-sssp", "snap/p2p-31.e", ImportOptions.defaults().withWeightColumn(3)},
                {"slashdot-sssp", "snap/soc-Slashdot0902.txt.gz", ImportOptions.defaults().withRandomWeights(7)},
                {"wiki-sssp", "snap/wiki-Vote.txt", ImportOptions.defaults()}};
        boolean[] seen = new boolean[2]; // pushed, gathered
        for (Object[] graph : graphs) {
            String name = (String) graph[0];
            try (GraphFile g = load(name, shared((String) graph[1]), (ImportOptions) graph[2])) {
                int n = (int) g.header().vertexCount();
                for (int source : new int[] {0, n / 3}) {
                    double[] want = References.shortestDistances(g, source);
                    for (int workers = 1; workers <= 3; workers++) {
                        PregelJob.Result r = run(name, new ShortestPaths(source), workers, messaging);
                        for (PregelJob.Superstep step : r.supersteps()) {
                            if (step.messages() > 0) {
                                seen[step.densePartitions() == 0 ? 0 : 1] = true;
                            }
                        }
                        assertArrayEquals(want, doubles(r), name + " from " + source + " on " + workers + " workers");
                    }
                }
            }
        }
        assertEquals(messaging != Messaging.GATHER, seen[0], "some superstep pushed");
        assertEquals(messaging != Messaging.PUSH, seen[1], "some superstep gathered");
    }

    /**
     * Jobs given a directory of gather plans: the first keeps its workers' plans there, the
     * next reads them (writes none, and marks them used), and both answer as the references do: PageRank
     * gathered every superstep (in-lists sorted), SSSP hybrid along weighted in-edges, and
     * WCC by label propagation heard along in- and out-edges of a directed graph.
     */
    @Test
    void shouldAnswerAlikeFromGatherPlansKeptByAnEarlierJob() throws IOException {
        Path plans = dir.resolve("plans");
        Map<Path, Object> written = new HashMap<>();
        try (GraphFile wiki = load("wiki-plans", shared("snap/wiki-Vote.txt"), ImportOptions.defaults());
             GraphFile slashdot = load("slashdot-plans", shared("snap/soc-Slashdot0902.txt.gz"), ImportOptions.defaults().withRandomWeights(7))) {
            double[] ranks = References.pageRank(wiki, 0.85, 20, false);
            double[] distances = References.shortestDistances(slashdot, 11);
            long[] components = References.weakComponents(wiki);
            for (int job = 0; job < 2; job++) {
                PregelJob.Options options = PregelJob.Options.defaults(2).withGatherPlans(plans);
                double[] got = doubles(PregelJob.run(rstore, "wiki-plans", new PageRank(0.85, 20, 0, false), options.withMessaging(Messaging.GATHER)));
                for (int v = 0; v < ranks.length; v++) {
                    assertEquals(ranks[v], got[v], 1e-9, "job " + job + ", rank of vertex " + v);
                }
                assertArrayEquals(distances, doubles(PregelJob.run(rstore, "slashdot-plans", new ShortestPaths(11), options.withMessaging(Messaging.HYBRID))),
                        "job " + job + ": distances");
                assertArrayEquals(components, longs(PregelJob.run(rstore, "wiki-plans", new ConnectedComponents(), options.withMessaging(Messaging.GATHER))),
                        "job " + job + ": components");
                if (job == 0) {
                    try (Stream<Path> kept = Files.list(plans)) {
                        List<Path> files = kept.toList();
                        assertEquals(6, files.size(), "two partitions' plans of three program shapes");
                        for (Path f : files) {
                            written.put(f, Files.readAttributes(f, BasicFileAttributes.class).fileKey()); // a plan made again is a new file
                            Files.setLastModifiedTime(f, LONG_AGO);
                        }
                    }
                }
            }
            try (Stream<Path> kept = Files.list(plans)) {
                List<Path> files = kept.toList();
                assertEquals(written.keySet(), Set.copyOf(files), "the same plans");
                for (Path f : files) {
                    assertEquals(written.get(f), Files.readAttributes(f, BasicFileAttributes.class).fileKey(), f + ": the second jobs read it, and wrote nothing");
                    assertTrue(Files.getLastModifiedTime(f).compareTo(LONG_AGO) > 0, f + ": marked used when read");
                }
            }
        }
    }

    /**
     * Buckets of any width give Dijkstra's distances, pushed or hybrid; on a grid (a road
     * network's long diameter) with weights 1–255 buckets twice the largest weight wide send
     * far fewer messages than Bellman-Ford's rounds, the point of them.
     */
    @ParameterizedTest
    @CsvSource({"PUSH", "HYBRID"})
    void shouldFindDijkstrasDistancesInBucketsOfAnyWidth(Messaging messaging) throws IOException {
        Path grid = dir.resolve("grid.txt");
        int side = 100;
        Random random = new Random(5);
        StringBuilder lines = new StringBuilder();
        for (int v = 0; v < side * side; v++) {
            for (int u : new int[] {v % side + 1 < side ? v + 1 : -1, v + side < side * side ? v + side : -1}) {
                if (u >= 0) {
                    int w = 1 + random.nextInt(255);
                    lines.append(v).append('\t').append(u).append('\t').append(w).append('\n');
                    lines.append(u).append('\t').append(v).append('\t').append(w).append('\n');
                }
            }
        }
        Files.writeString(grid, lines);
        Object[][] graphs = {{"grid-sssp", grid, ImportOptions.defaults().withWeightColumn(3)},
                {"p2p-delta", shared("snap/p2p-31.e"), ImportOptions.defaults().withWeightColumn(3)},
                {"slashdot-delta", shared("snap/soc-Slashdot0902.txt.gz"), ImportOptions.defaults().withRandomWeights(7)}};
        for (Object[] graph : graphs) {
            String name = (String) graph[0];
            try (GraphFile g = load(name, (Path) graph[1], (ImportOptions) graph[2])) {
                double suggested = ShortestPaths.suggestedDelta(g.header());
                double[] widths = name.equals("grid-sssp") ? new double[] {50, suggested, Double.POSITIVE_INFINITY} // distances in the thousands
                        : new double[] {1, 3.5, suggested, Double.POSITIVE_INFINITY};
                for (double delta : widths) {
                    for (int workers : new int[] {1, 3}) {
                        double[] want = References.shortestDistances(g, 0);
                        PregelJob.Result r = run(name, new ShortestPaths(0, delta), workers, messaging);
                        assertArrayEquals(want, doubles(r), name + " in buckets " + delta + " wide on " + workers + " workers");
                    }
                }
                if (name.equals("grid-sssp")) {
                    assertEquals(510, suggested, "twice the largest weight, 255");
                    long bellmanFord = messages(run(name, new ShortestPaths(0), 2, messaging));
                    long buckets = messages(run(name, new ShortestPaths(0, suggested), 2, messaging));
                    assertTrue(buckets * 2 < bellmanFord, "buckets sent " + buckets + " messages, Bellman-Ford's rounds " + bellmanFord);
                }
            }
        }
    }

    private static long messages(PregelJob.Result r) {
        return r.supersteps().stream().mapToLong(PregelJob.Superstep::messages).sum();
    }

    /** A test program of long values that may gather: it sends one long along its out-edges, combined by {@code combiner}. */
    abstract static class LongBroadcasting implements VertexProgram {
        private final io.carafe.pregel.LongCombiner combiner;

        LongBroadcasting(io.carafe.pregel.LongCombiner combiner) {
            this.combiner = combiner;
        }

        @Override
        public Declaration declaration() {
            return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, combiner).sendingAlongOutEdges();
        }

    }

    /** Every vertex with out-edges sends its id as a long; each keeps the largest that reached it, as gathered longs. */
    static final class LargestInNeighbourLong extends LongBroadcasting {
        LargestInNeighbourLong() {
            super(io.carafe.pregel.LongCombiner.MAX);
        }

        @Override
        public void compute(Context ctx) {
            if (ctx.superstep() == 0) {
                ctx.value().setLong(0, -1);
                if (ctx.outDegree() > 0) {
                    ctx.sendToOutNeighbours((long) ctx.vertex() << 20); // beyond an int, so a long is needed
                }
            } else if (ctx.hasMessages()) {
                ctx.value().setLong(0, ctx.messageLong());
            }
            ctx.voteToHalt();
        }
    }

    /**
     * A program that sends one value each superstep: a receiver stops at its first sending
     * in-neighbour when gathering. Every third vertex sends 5, the others nothing; a vertex
     * gets 5 if any in-neighbour is a multiple of 3 (counted from the edges), however the
     * messages travel. A program that says so and then sends its id fails the job, as does
     * one whose workers each send one value but not the same; one that adds edge weights may
     * not say so.
     */
    @Test
    void shouldStopAtTheFirstSenderOnlyWhenEverySenderSendsOneValue() {
        try (GraphFile g = load("wiki-one", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            long[] want = new long[n];
            java.util.Arrays.fill(want, -1);
            forEachEdge(g, (s, t) -> {
                if (s % 3 == 0) {
                    want[t] = 5;
                }
            });
            for (Messaging messaging : new Messaging[] {Messaging.GATHER, Messaging.HYBRID, Messaging.PUSH}) {
                assertArrayEquals(want, longs(run("wiki-one", new OneValue(v -> 5L), 3, messaging)), messaging.name());
            }
            for (Messaging messaging : new Messaging[] {Messaging.GATHER, Messaging.HYBRID}) {
                PregelException e = assertThrows(PregelException.class, () -> run("wiki-one", new OneValue(v -> (long) v), 2, messaging));
                assertTrue(e.getMessage().contains("declares Declaration.sameValueEachSuperstep, but in superstep 0 one vertex sent"), e.getMessage());
            }
            // one value within each worker, but not the same one: the receivers see it across the partitions' broadcasts
            int split;
            try (PregelJob.Result r = run("wiki-one", new OneValue(v -> 5L), 2, Messaging.GATHER)) {
                split = r.partitioning().starts()[1];
            }
            for (Messaging messaging : new Messaging[] {Messaging.GATHER, Messaging.HYBRID}) {
                PregelException e = assertThrows(PregelException.class, () -> run("wiki-one", new OneValue(v -> v < split ? 5L : 7L), 2, messaging));
                assertTrue(e.getMessage().contains("declares Declaration.sameValueEachSuperstep, but in superstep 0 partition 0 sent 5 (raw bits) and partition 1 sent 7"),
                        e.getMessage());
            }
            VertexProgram weighted = new Broadcasting(DoubleCombiner.MIN) {
                @Override
                public Declaration declaration() {
                    return super.declaration().plusWeight().sameValueEachSuperstep();
                }

                @Override
                public void compute(Context ctx) {
                    ctx.sendToOutNeighbours(0.0);
                }
            };
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run("wiki-one", weighted, 2));
            assertTrue(e.getMessage().contains("Declaration.sameValueEachSuperstep: a receiver gets the one value sent, but plusWeight adds"), e.getMessage());
        }
    }

    /** Vertices whose id is a multiple of 3 send {@code value(id)} once; a vertex keeps what it got (-1 for nothing). */
    static final class OneValue extends LongBroadcasting {
        private final java.util.function.IntToLongFunction value;

        OneValue(java.util.function.IntToLongFunction value) {
            super(io.carafe.pregel.LongCombiner.MIN);
            this.value = value;
        }

        @Override
        public Declaration declaration() {
            return super.declaration().sameValueEachSuperstep();
        }

        @Override
        public void compute(Context ctx) {
            if (ctx.superstep() == 0) {
                ctx.value().setLong(0, -1);
                if (ctx.vertex() % 3 == 0) {
                    ctx.sendToOutNeighbours(value.applyAsLong(ctx.vertex()));
                }
            } else if (ctx.hasMessages()) {
                ctx.value().setLong(0, ctx.message().getLong(0));
            }
            ctx.voteToHalt();
        }
    }

    @Test
    void shouldGatherLongs() {
        try (GraphFile g = load("wiki-long", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            long[] want = new long[n];
            java.util.Arrays.fill(want, -1);
            forEachEdge(g, (s, t) -> want[t] = Math.max(want[t], (long) s << 20));
            for (Messaging messaging : new Messaging[] {Messaging.GATHER, Messaging.HYBRID, Messaging.PUSH}) {
                assertArrayEquals(want, longs(run("wiki-long", new LargestInNeighbourLong(), 3, messaging)), messaging.name());
            }
        }
    }

    /** Every vertex with out-edges sends its id once; each vertex keeps the largest id that reached it (-1 for none). */
    static final class LargestInNeighbour extends Broadcasting {
        LargestInNeighbour() {
            super(DoubleCombiner.MAX);
        }

        @Override
        public void compute(Context ctx) {
            if (ctx.superstep() == 0) {
                ctx.value().setDouble(0, -1);
                if (ctx.outDegree() > 0) {
                    ctx.sendToOutNeighbours((double) ctx.vertex());
                }
            } else if (ctx.hasMessages()) {
                ctx.value().setDouble(0, ctx.message().getDouble(0));
            }
            ctx.voteToHalt();
        }
    }

    @Test
    void shouldGatherWithAMaxCombinerWhenEverySlotSent() {
        try (GraphFile g = load("wiki-max", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            double[] want = new double[n];
            java.util.Arrays.fill(want, -1);
            forEachEdge(g, (s, t) -> want[t] = Math.max(want[t], s));
            for (Messaging messaging : new Messaging[] {Messaging.GATHER, Messaging.HYBRID, Messaging.PUSH}) {
                assertArrayEquals(want, doubles(run("wiki-max", new LargestInNeighbour(), 3, messaging)), messaging.name());
            }
        }
    }

    /** docs/carafe.md's example: how many of a vertex's out-neighbours link back, read from their own lists. */
    static final class LinksBack implements VertexProgram {
        @Override
        public Declaration declaration() {
            return Declaration.values(RecordLayout.LONG).readingNeighbourhoods(); // sends nothing
        }

        @Override
        public void compute(Context ctx) {
            long back = 0;
            for (Edges e = ctx.outEdges(); e.next(); ) {
                if (ctx.outNeighbours(e.target()).search(0, ctx.vertex()) >= 0) {
                    back++;
                }
            }
            ctx.value().setLong(0, back);
            ctx.voteToHalt();
        }
    }

    /**
     * Slashdot's 948,464 edges are four blocks of targets: with the smallest cache (three
     * blocks an edge array) three workers read each other's lists, evicting and reading
     * blocks again. Against the reciprocal edges counted from the graph file.
     */
    @Test
    void shouldReadOtherPartitionsNeighbourhoodsThroughASmallCache() {
        try (GraphFile g = load("slashdot-links", shared("snap/soc-Slashdot0902.txt.gz"), ImportOptions.defaults())) {
            it.unimi.dsi.fastutil.longs.LongOpenHashSet edges = new it.unimi.dsi.fastutil.longs.LongOpenHashSet();
            forEachEdge(g, (s, t) -> edges.add((long) s << 32 | t));
            long[] want = new long[(int) g.header().vertexCount()];
            forEachEdge(g, (s, t) -> want[s] += edges.contains((long) t << 32 | s) ? 1 : 0);
            PregelJob.Options small = PregelJob.Options.defaults(3).withNeighbourhoodCacheBytes(io.carafe.graph.NeighbourhoodReader.MIN_CACHE_BYTES);
            assertArrayEquals(want, longs(PregelJob.run(rstore, "slashdot-links", new LinksBack(), small)));
        }
    }

    @Test
    void shouldRefuseNeighbourhoodsUndeclaredAndSendsFromAProgramThatSendsNothing() {
        try (GraphFile g = load("eu-reads", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            VertexProgram undeclared = new ForwardingVertexProgram(new LinksBack()) {
                @Override
                public Declaration declaration() {
                    return Declaration.values(RecordLayout.LONG); // reads neighbourhoods all the same
                }
            };
            PregelException e = assertThrows(PregelException.class, () -> run("eu-reads", undeclared, 2));
            assertTrue(e.getMessage().contains("needs a program that declares Declaration.readingNeighbourhoods()"), e.getMessage());
            VertexProgram sending = new ForwardingVertexProgram(new LinksBack()) {
                @Override
                public void compute(Context ctx) {
                    ctx.sendTo(0, 1L);
                }
            };
            PregelException s = assertThrows(PregelException.class, () -> run("eu-reads", sending, 2));
            assertTrue(s.getMessage().contains("declares no messages (Declaration.messages), so it may not send"), s.getMessage());
        }
    }

    @Test
    void shouldRefuseToGatherForAProgramThatCannot() {
        try (GraphFile g = load("eu-push", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> run("eu-push", new LabelPropagation(3), 2, Messaging.GATHER));
            assertTrue(e.getMessage().contains("PregelJob.Options.messaging gather needs a program that sends one double or one long along its out-edges"), e.getMessage());
            try (PregelJob.Result auto = run("eu-push", new LabelPropagation(3), 2)) {
                assertEquals(Messaging.PUSH, auto.messaging(), "auto pushes for such a program");
            }
        }
    }

    /** A start vertex past the graph's last is refused before any worker starts, naming it; one in range starts a search. */
    @Test
    void shouldRefuseAStartVertexTheGraphDoesNotHave() {
        try (GraphFile g = load("eu-starts", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run("eu-starts", new BreadthFirstSearch(n), 2));
            assertTrue(e.getMessage().contains("startVertices() holds " + n + ", which the graph does not have"), e.getMessage());
            try (PregelJob.Result r = run("eu-starts", new BreadthFirstSearch(n - 1), 2)) {
                assertEquals(0, r.longs(0)[n - 1]);
                assertEquals(1, r.supersteps().getFirst().computedVertices(), "superstep 0 computes the source alone");
            }
        }
    }

    @Test
    void shouldRefuseABuiltInCombinerOverAWiderMessage() {
        try (GraphFile g = load("eu-wide", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            VertexProgram wide = new VertexProgram() {
                @Override
                public void compute(Context ctx) {
                    ctx.voteToHalt();
                }

                @Override
                public Declaration declaration() {
                    return Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.builder().addDouble("a").addDouble("b").build(), DoubleCombiner.SUM);
                }

            };
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run("eu-wide", wide, 2));
            assertTrue(e.getMessage().contains("write a Combiner over the record"), e.getMessage());
            assertTrue(rstore.namespaces().stream().noneMatch(ns -> ns.name().startsWith("carafe/job/")), "no job was left behind");
        }
    }

    /** Vertices 3..12 have no edges, so with 4 workers some partitions have none at all. */
    @Test
    void shouldHandlePartitionsWithoutEdges() throws IOException {
        Path edges = dir.resolve("sparse.e");
        Files.writeString(edges, "1 2\n2 1\n");
        Path vertices = dir.resolve("sparse.v");
        StringBuilder ids = new StringBuilder();
        for (int i = 1; i <= 12; i++) {
            ids.append(i).append('\n');
        }
        Files.writeString(vertices, ids.toString());
        try (GraphFile g = load("sparse", edges, ImportOptions.defaults().withVerticesFile(vertices))) {
            for (Messaging messaging : new Messaging[] {Messaging.GATHER, Messaging.PUSH}) {
                try (PregelJob.Result r = run("sparse", new PageRank(0.85, 10, 0, false), 4, messaging)) {
                    assertArrayEquals(References.pageRank(g, 0.85, 10, false), r.doubles(0), 1e-12, messaging.name());
                    assertEquals(4, r.partitioning().partitions());
                }
            }
        }
    }

    /**
     * Each vertex of a path takes its in-neighbour's value plus one, the head 1. Read as the
     * previous superstep left them, the values move one vertex a superstep; read newer, a
     * worker sweeps its part of the path in one superstep, and its successor picks up where
     * it ended, in the same superstep or the next. Either way each vertex ends at its depth.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4})
    void shouldShowValuesChangedInTheSameSuperstepOnlyToProgramsThatReadNewerOnes(int workers) throws IOException {
        int n = 200;
        StringBuilder path = new StringBuilder();
        StringBuilder ids = new StringBuilder();
        for (int i = 0; i < n; i++) {
            ids.append(i).append('\n');
            if (i + 1 < n) {
                path.append(i).append(' ').append(i + 1).append('\n');
            }
        }
        Path edges = Files.writeString(dir.resolve("path.e"), path.toString());
        Path vertices = Files.writeString(dir.resolve("path.v"), ids.toString());
        long[] depths = new long[n];
        for (int i = 0; i < n; i++) {
            depths[i] = i + 1;
        }
        String name = "path-" + workers;
        try (GraphFile g = load(name, edges, ImportOptions.defaults().withVerticesFile(vertices))) {
            for (boolean newer : new boolean[] {false, true}) {
                try (PregelJob.Result r = run(name, new PathDepth(newer), workers)) {
                    assertArrayEquals(depths, r.longs(0), newer ? "newer values" : "previous values");
                    int supersteps = r.supersteps().size();
                    if (newer) {
                        assertTrue(supersteps <= workers, "each worker's part in one sweep, and at most one superstep more for each"
                                + " part before it: " + supersteps + " supersteps with " + workers + " workers");
                    } else {
                        assertEquals(n, supersteps, "one vertex a superstep: reads see the previous superstep's values alone");
                    }
                }
            }
        }
    }

    /** A vertex's depth along a path: its in-neighbour's plus one, read from the in-neighbour's value. */
    private record PathDepth(boolean newer) implements VertexProgram {
        @Override
        public Declaration declaration() {
            Declaration d = Declaration.values(RecordLayout.LONG).readingInEdges();
            return newer ? d.readingNewerValues() : d.readingOtherValues();
        }

        @Override
        public void compute(Context ctx) {
            long depth = 1; // the head's
            for (Edges in = ctx.inEdges(); in.next(); ) {
                long before = ctx.longValueOf(in.target());
                depth = before == 0 ? 0 : before + 1; // 0: not reached yet
            }
            if (depth > 0) {
                ctx.value().setLong(0, depth);
                ctx.voteToHalt();
            }
        }
    }

    /** Without a combiner every message is delivered: each vertex counts its in-edges. */
    @Test
    void shouldDeliverEveryMessageWithoutACombiner() {
        VertexProgram inDegree = ctx -> {
            if (ctx.superstep() == 0) {
                ctx.sendToOutNeighbours(1.0);
            } else {
                double sum = 0;
                for (int i = 0; i < ctx.messageCount(); i++) {
                    sum += ctx.message(i).getDouble(0);
                }
                ctx.value().setDouble(0, sum);
            }
            ctx.voteToHalt();
        };
        try (GraphFile g = load("eu", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            double[] got = doubles(run("eu", inDegree, 3));
            double[] want = new double[got.length];
            for (long e = 0; e < g.header().edgeCount(); e++) {
                want[io.carafe.graph.EdgeLayout.target(g.edges(), e)]++;
            }
            assertArrayEquals(want, got);
        }
    }

    /**
     * What a program shares in a process is made once for the job's thread workers, however
     * many there are and however often they ask, and each job makes its own; asking for a
     * second kind of object in one job is refused.
     */
    @Test
    void shouldMakeWhatWorkersShareOnceAProcess() {
        java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
        VertexProgram sharing = ctx -> {
            int[] degrees = ctx.sharedInProcess(int[].class, () -> {
                made.incrementAndGet();
                return new int[] {(int) ctx.vertexCount()};
            });
            ctx.value().setDouble(0, degrees[0]);
            ctx.voteToHalt();
        };
        try (GraphFile g = load("eu-shared", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            double[] got = doubles(run("eu-shared", sharing, 4));
            double[] want = new double[got.length];
            java.util.Arrays.fill(want, g.header().vertexCount());
            assertArrayEquals(want, got, "every worker sees the one object");
            assertEquals(1, made.get(), "made once for the four workers of one process");
            doubles(run("eu-shared", sharing, 2));
            assertEquals(2, made.get(), "a second job makes its own");
            VertexProgram twoKinds = ctx -> {
                ctx.sharedInProcess(int[].class, () -> new int[1]);
                ctx.sharedInProcess(long[].class, () -> new long[1]);
            };
            PregelException e = assertThrows(PregelException.class, () -> run("eu-shared", twoKinds, 2));
            assertTrue(e.getMessage().contains("sharedInProcess(long[]): this job's workers share a int[] already"), e.getMessage());
        }
    }

    @Test
    void shouldReportAFailingWorkerAndCleanUp() throws IOException {
        Path file = dir.resolve("ring.txt");
        StringBuilder ring = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            ring.append(i).append(' ').append((i + 1) % 100).append('\n');
        }
        Files.writeString(file, ring.toString());
        try (GraphFile g = load("ring", file, ImportOptions.defaults())) {
            VertexProgram failing = ctx -> {
                if (ctx.superstep() == 3 && ctx.vertex() == 77) {
                    throw new IllegalStateException("vertex 77 gives up");
                }
                ctx.sendToOutNeighbours(1.0);
            };
            PregelException e = assertThrows(PregelException.class, () -> run("ring", failing, 2));
            assertTrue(e.getMessage().contains("worker 1 failed: vertex 77 gives up"), e.getMessage());
            VertexProgram twice = new Broadcasting(DoubleCombiner.SUM) {
                @Override
                public void compute(Context ctx) {
                    ctx.sendToOutNeighbours(1.0);
                    ctx.sendToOutNeighbours(2.0);
                }
            };
            PregelException e2 = assertThrows(PregelException.class, () -> run("ring", twice, 2));
            assertTrue(e2.getMessage().contains("at most once per superstep"), e2.getMessage());
            assertTrue(rstore.namespaces().stream().noneMatch(ns -> ns.name().startsWith("carafe/job/")), "job namespaces are deleted");
            // the engine still works after failures
            assertEquals(100, longs(run("ring", new BreadthFirstSearch(0), 2)).length);
        }
    }

    /**
     * Sends far beyond one message per edge, to vertices that are not neighbours, and
     * nothing at all from some: each vertex v sends its id three times along every
     * out-edge and once to (7v + 1) mod n, except multiples of 5, which send nothing. Each
     * vertex sums what it got and counts the messages; the mailboxes start sized by edges
     * and must grow.
     */
    static final class Flood implements VertexProgram {
        static final RecordLayout VALUE = RecordLayout.builder().addLong("sum").addInt("count").build();
        static final RecordLayout MESSAGE = RecordLayout.builder().addInt("pad").addLong("id").build();

        @Override
        public Declaration declaration() {
            return Declaration.values(VALUE).messages(MESSAGE);
        }

        @Override
        public void compute(Context ctx) {
            int v = ctx.vertex();
            if (ctx.superstep() == 0) {
                if (v % 5 != 0) {
                    RecordView m = ctx.newMessage();
                    m.setLong(MESSAGE.offset("id"), v);
                    for (int k = 0; k < 3; k++) {
                        ctx.sendToOutNeighbours(m);
                    }
                    ctx.sendTo((int) ((7L * v + 1) % ctx.vertexCount()), m);
                }
            } else {
                long sum = 0;
                for (int i = 0; i < ctx.messageCount(); i++) {
                    sum += ctx.message(i).getLong(MESSAGE.offset("id"));
                }
                ctx.value().setLong(VALUE.offset("sum"), sum);
                ctx.value().setInt(VALUE.offset("count"), ctx.messageCount());
            }
            ctx.voteToHalt();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void shouldDeliverEveryMessageHoweverManyAndWherever(int workers) {
        try (GraphFile g = load("eu-flood-" + workers, shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            long[] sum = new long[n];
            int[] count = new int[n];
            for (int s = 0; s < n; s++) {
                if (s % 5 == 0) {
                    continue;
                }
                long begin = VertexLayout.firstEdge(g.vertices(), s);
                for (long e = begin; e < begin + VertexLayout.degree(g.vertices(), s); e++) {
                    int t = io.carafe.graph.EdgeLayout.target(g.edges(), e);
                    sum[t] += 3L * s;
                    count[t] += 3;
                }
                int far = (int) ((7L * s + 1) % n);
                sum[far] += s;
                count[far]++;
            }
            try (PregelJob.Result r = run("eu-flood-" + workers, new Flood(), workers)) {
                assertArrayEquals(sum, r.longs(Flood.VALUE.offset("sum")));
                long[] got = new long[n];
                r.forEachValue((v, value) -> got[v] = value.getInt(Flood.VALUE.offset("count")));
                assertArrayEquals(java.util.Arrays.stream(count).asLongStream().toArray(), got);
                assertEquals(java.util.Arrays.stream(count).asLongStream().sum(), r.supersteps().getFirst().messages());
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /**
     * A user-defined combiner over two fields (min of one, max of the other), long
     * aggregators of each kind, and a global the master sets from them: each vertex sends
     * (id, id) to its out-neighbours and keeps the combined (min, max) of its in-neighbours;
     * the master publishes the largest in-degree seen, which every vertex records.
     */
    static final class MinMax implements VertexProgram {
        static final RecordLayout PAIR = RecordLayout.builder().addLong("min").addLong("max").build();
        static final RecordLayout VALUE = RecordLayout.builder().addLong("min").addLong("max").addLong("global").build();

        @Override
        public Declaration declaration() {
            return Declaration.values(VALUE).messages(PAIR, new Combiner() {
                @Override
                public void identity(RecordView m) {
                    m.setLong(0, Long.MAX_VALUE);
                    m.setLong(8, Long.MIN_VALUE);
                }

                @Override
                public void combine(RecordView into, RecordView m) {
                    into.setLong(0, Math.min(into.getLong(0), m.getLong(0)));
                    into.setLong(8, Math.max(into.getLong(8), m.getLong(8)));
                }
            }).readingInEdges();
        }

        @Override
        public java.util.List<io.carafe.pregel.Aggregator> aggregators() {
            return java.util.List.of(io.carafe.pregel.Aggregator.maxLong(), io.carafe.pregel.Aggregator.minLong(),
                    io.carafe.pregel.Aggregator.sumLong());
        }

        @Override
        public int globals() {
            return 1;
        }

        @Override
        public void compute(Context ctx) {
            if (ctx.superstep() == 0) {
                RecordView m = ctx.newMessage();
                m.setLong(0, ctx.vertex());
                m.setLong(8, ctx.vertex());
                ctx.sendToOutNeighbours(m);
                ctx.aggregate(0, (long) ctx.inDegree());
                ctx.aggregate(1, (long) ctx.inDegree());
                ctx.aggregate(2, 1L);
            } else if (ctx.superstep() == 1) {
                ctx.value().setLong(0, ctx.message().getLong(0));
                ctx.value().setLong(8, ctx.message().getLong(8));
            } else {
                ctx.value().setLong(16, ctx.globalLong(0));
                ctx.voteToHalt();
            }
        }

        @Override
        public boolean masterCompute(MasterContext master) {
            if (master.superstep() == 0) {
                assertEquals(master.vertexCount(), master.aggregatedLong(2), "a sum aggregator counts every vertex");
                master.setGlobal(0, master.aggregatedLong(0) * 1000 + master.aggregatedLong(1));
            }
            return master.superstep() >= 2;
        }
    }

    @Test
    void shouldCombineWithAUserCombinerAndCarryAggregatesAndGlobals() {
        try (GraphFile g = load("eu-minmax", shared("snap/email-Eu-core.txt.gz"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            long[] min = new long[n];
            long[] max = new long[n];
            int[] inDegree = new int[n];
            java.util.Arrays.fill(min, Long.MAX_VALUE);
            java.util.Arrays.fill(max, Long.MIN_VALUE);
            forEachEdge(g, (s, t) -> {
                min[t] = Math.min(min[t], s);
                max[t] = Math.max(max[t], s);
                inDegree[t]++;
            });
            long global = java.util.Arrays.stream(inDegree).max().orElseThrow() * 1000L + java.util.Arrays.stream(inDegree).min().orElseThrow();
            try (PregelJob.Result r = run("eu-minmax", new MinMax(), 2)) {
                long[] gotMin = r.longs(0);
                long[] gotMax = r.longs(8);
                long[] gotGlobal = r.longs(16);
                for (int v = 0; v < n; v++) {
                    if (inDegree[v] > 0) { // vertices without in-edges get no message, and keep zeroes
                        assertEquals(min[v], gotMin[v], "min of vertex " + v);
                        assertEquals(max[v], gotMax[v], "max of vertex " + v);
                    }
                    assertEquals(global, gotGlobal[v], "the master's global reached vertex " + v);
                }
            }
        }
    }
}

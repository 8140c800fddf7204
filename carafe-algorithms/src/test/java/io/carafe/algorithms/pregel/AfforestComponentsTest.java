package io.carafe.algorithms.pregel;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.algorithms.references.References;
import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.ImportOptions;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.PregelException;
import io.carafe.pregel.PregelJob;
import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Weak components by hooking and pointer jumping on the engine (AfforestComponents), and
 * what it stands on: a program reading other vertices' values as the previous superstep
 * left them (VertexProgram.readsOtherValues). Answers are checked against References'
 * sequential union-find and against sums worked out here from the graph's edges.
 */
@Timeout(120)
class AfforestComponentsTest extends GraphTestBase {

    private PregelJob.Result run(String graph, VertexProgram program, int workers) {
        return PregelJob.run(rstore, graph, program, PregelJob.Options.defaults(workers));
    }

    /** Real graphs imported directed (neighbours along out- and in-edges) and undirected, 1 to 3 workers. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldFindTheWeakComponentsOfRealGraphs(boolean undirected) {
        String[][] graphs = {{"wiki", "snap/wiki-Vote.txt"}, {"eu", "snap/email-Eu-core.txt.gz"}, {"p2p", "snap/p2p-31.e"},
                {"gnutella", "snap/p2p-Gnutella05.txt"}};
        for (String[] graph : graphs) {
            String name = graph[0] + (undirected ? "-u" : "-d");
            try (GraphFile g = load(name, shared(graph[1]), ImportOptions.defaults().withUndirected(undirected))) {
                long[] want = References.weakComponents(g);
                for (int workers = 1; workers <= 3; workers++) {
                    assertArrayEquals(want, PregelTest.longs(run(name, new AfforestComponents(), workers)), name + " on " + workers + " workers");
                }
            }
        }
    }

    /**
     * A path of 3,000 vertices whose ids are shuffled (the smallest sits anywhere along it)
     * beside a ring of 500 and 20 vertices on their own: label propagation needs as many
     * supersteps as the path is long; hooking and climbing need a couple of dozen.
     */
    @Test
    void shouldNotNeedAsManySuperstepsAsTheDiameter() throws IOException {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 3_520; i++) {
            ids.add(i * 7 + 3);
        }
        Collections.shuffle(ids, new Random(42));
        StringBuilder edges = new StringBuilder();
        for (int i = 0; i + 1 < 3_000; i++) {
            edges.append(ids.get(i)).append(' ').append(ids.get(i + 1)).append('\n');
        }
        for (int i = 0; i < 500; i++) {
            edges.append(ids.get(3_000 + i)).append(' ').append(ids.get(3_000 + (i + 1) % 500)).append('\n');
        }
        StringBuilder vertices = new StringBuilder();
        ids.forEach(id -> vertices.append(id).append('\n'));
        Path e = Files.writeString(dir.resolve("path.e"), edges);
        Path v = Files.writeString(dir.resolve("path.v"), vertices);
        try (GraphFile g = load("path", e, ImportOptions.defaults().withUndirected(true).withVerticesFile(v))) {
            long[] want = References.weakComponents(g);
            assertEquals(3, want[0], "the smallest id, 3, labels its component");
            for (int workers = 1; workers <= 3; workers++) {
                PregelJob.Result r = run("path", new AfforestComponents(), workers);
                int supersteps = r.supersteps().size();
                assertArrayEquals(want, PregelTest.longs(r), "on " + workers + " workers");
                // 18 as built; plain pointer jumping (one parent link a superstep) took 28
                assertTrue(supersteps <= 24, supersteps + " supersteps on " + workers + " workers, for a path of 3,000");
            }
        }
    }

    /**
     * Where every vertex's original id is its internal id (a generated graph, a file numbered
     * 0..n-1 in order), the fixpoint's parents are the labels: the job ends there. The same
     * graph numbered from 1 needs the two supersteps that learn the roots' original ids.
     * Counted on one worker: on more, the supersteps hooking takes depend on how the worker
     * threads interleave (each reads the parents the other has changed so far), its answer not.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void shouldEndAtTheFixpointWhereOriginalIdsAreInternalIds(int workers) throws IOException {
        int n = 300;
        long[] steps = new long[2];
        for (int first : new int[] {0, 1}) {
            StringBuilder edges = new StringBuilder();
            for (int i = 0; i + 1 < 200; i++) { // a path, then a ring of 80, then 20 alone
                edges.append(first + i).append(' ').append(first + i + 1).append('\n');
            }
            for (int i = 0; i < 80; i++) {
                edges.append(first + 200 + i).append(' ').append(first + 200 + (i + 1) % 80).append('\n');
            }
            StringBuilder vertices = new StringBuilder();
            for (int i = 0; i < n; i++) {
                vertices.append(first + i).append('\n');
            }
            String name = "numbered-from-" + first;
            Path e = Files.writeString(dir.resolve(name + ".e"), edges);
            Path v = Files.writeString(dir.resolve(name + ".v"), vertices);
            try (GraphFile g = load(name, e, ImportOptions.defaults().withUndirected(true).withVerticesFile(v))) {
                PregelJob.Result r = run(name, new AfforestComponents(), workers);
                assertArrayEquals(References.weakComponents(g), PregelTest.longs(r), name);
                steps[first] = r.supersteps().size();
            }
        }
        if (workers == 1) {
            assertEquals(steps[0] + 2, steps[1], "supersteps numbered from 0, and from 1");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void shouldReadOtherVerticesValuesAsThePreviousSuperstepLeftThem(int workers) {
        try (GraphFile g = load("wiki-sums", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            int n = (int) g.header().vertexCount();
            long[] first = new long[n];
            long[] second = new long[n];
            for (int s = 0; s < n; s++) {
                for (long e = VertexLayout.firstEdge(g.vertices(), s), end = e + VertexLayout.degree(g.vertices(), s); e < end; e++) {
                    first[s] = (first[s] + VertexLayout.originalId(g.vertices(), EdgeLayout.target(g.edges(), e)) + 1_000) % NeighbourSums.MODULUS;
                }
            }
            for (int s = 0; s < n; s++) {
                for (long e = VertexLayout.firstEdge(g.vertices(), s), end = e + VertexLayout.degree(g.vertices(), s); e < end; e++) {
                    second[s] = (second[s] + first[EdgeLayout.target(g.edges(), e)]) % NeighbourSums.MODULUS;
                }
            }
            PregelJob.Result r = run("wiki-sums", new NeighbourSums(3), workers);
            assertEquals(3, r.supersteps().size());
            assertArrayEquals(second, PregelTest.longs(r));
        }
    }

    @Test
    void shouldRefuseValueOfToAProgramThatDoesNotDeclareItOrToNoVertexAndRefuseWritesThroughIt() {
        try (GraphFile g = load("wiki-refuse", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            VertexProgram undeclared = ctx -> ctx.valueOf(0);
            PregelException e = assertThrows(PregelException.class, () -> run("wiki-refuse", undeclared, 2).close());
            assertTrue(messages(e).contains("valueOf(vertex) needs a program that declares Declaration.readingOtherValues()"), messages(e));
            VertexProgram outside = new NeighbourSums(3) {
                @Override
                public void compute(Context ctx) {
                    ctx.longValueOf((int) ctx.vertexCount());
                }
            };
            e = assertThrows(PregelException.class, () -> run("wiki-refuse", outside, 2).close());
            assertTrue(messages(e).contains("longValueOf(7115): no such vertex; internal ids run from 0 to 7114"), messages(e));
            VertexProgram writer = new NeighbourSums(3) {
                @Override
                public void compute(Context ctx) {
                    ctx.valueOf(ctx.vertex()).setLong(0, 1); // what the process's other workers read
                }
            };
            e = assertThrows(PregelException.class, () -> run("wiki-refuse", writer, 2).close());
            assertTrue(messages(e).contains("read-only"), messages(e));
            assertTrue(rstore.namespaces().stream().noneMatch(ns -> ns.name().startsWith("carafe/job/")), "no job was left behind");
        }
    }

    private static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append(" | ");
        }
        return all.toString();
    }
}

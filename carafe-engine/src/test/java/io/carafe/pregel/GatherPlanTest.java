package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
import io.carafe.importer.GraphFile;
import io.carafe.importer.GraphImporter;
import io.carafe.importer.ImportOptions;
import io.carafe.importer.SharedData;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Gather plans kept in a directory: read back, each is what making it from the graph gives
 * (slots, degrees, in-lists, weights) for every shape of program; a plan of another
 * partitioning, a damaged file, or a graph of the same identity but other edges is made
 * again, never used; and a directory that cannot be written costs nothing but the work.
 */
class GatherPlanTest {
    @TempDir
    Path dir;
    private RStore rstore;

    @BeforeEach
    void start() {
        rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20));
    }

    @AfterEach
    void stop() {
        rstore.close();
    }

    /** Directed and weighted (Bitcoin Alpha): heard along out-edges or both ways, with weights or not, sorted or not, on 3 partitions. */
    @Test
    void shouldReadBackWhatMakingThePlanGivesForEveryShape() throws IOException {
        Path csv = SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz");
        try (GraphFile file = GraphImporter.importEdgeList(csv, ImportOptions.defaults().withWeightColumn(3), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "alpha", file)) {
            Partitioning partitioning = Partitioning.compute(rstore, "alpha", 3, 1, 1);
            Path plans = dir.resolve("plans");
            for (int shape = 0; shape < 8; shape++) {
                boolean bothWays = (shape & 1) != 0;
                boolean plusWeight = (shape & 2) != 0;
                boolean sorted = (shape & 4) != 0;
                if (bothWays && plusWeight) {
                    continue; // a program that adds weights sends along out-edges alone (Declaration refuses the rest)
                }
                for (int index = 0; index < 3; index++) {
                    GatherPlan made = GatherPlan.obtain(null, rstore, "alpha", partitioning, index, bothWays, plusWeight, sorted, new GatheredArrays());
                    GatheredArrays arrays = new GatheredArrays(); // a plan made twice with these shares their slots
                    GatherPlan first = GatherPlan.obtain(plans, rstore, "alpha", partitioning, index, bothWays, plusWeight, sorted, arrays);
                    GatherPlan kept = GatherPlan.obtain(plans, rstore, "alpha", partitioning, index, bothWays, plusWeight, sorted, arrays);
                    String what = "shape " + shape + ", partition " + index;
                    assertSame(made, first, what + " (made with a directory)");
                    assertSame(made, kept, what + " (read back)");
                    assertNotSame(first.base(), kept.base(), what + ": the second was read from the file, not made again");
                }
            }
            assertEquals(18, planFiles(plans).size(), "one file per partition and shape");
            Partitioning other = Partitioning.compute(rstore, "alpha", 2, 1, 1);
            GatherPlan.obtain(plans, rstore, "alpha", other, 0, false, false, false, new GatheredArrays());
            assertEquals(19, planFiles(plans).size(), "another partitioning keeps a plan of its own");
        }
    }

    /**
     * Sorting in-lists by slot moves each weight with its slot: every vertex's (slot, weight)
     * pairs are those of the unsorted plan, the slots ascending. Weights stored as floats
     * (Bitcoin Alpha's, and halves) and as doubles (tenths, which no float holds); halves and
     * tenths each have a hub with a long in-list (a sort's other path than short lists'),
     * with repeated edges (kept).
     */
    @Test
    void shouldSortEachInListWithItsWeights() throws IOException {
        Path tenths = randomEdges(dir.resolve("tenths.txt"), 10);
        Path halves = randomEdges(dir.resolve("halves.txt"), 2);
        for (Path edges : List.of(SharedData.file("snap/soc-sign-bitcoinalpha.csv.gz"), tenths, halves)) {
            String name = edges.getFileName().toString().replaceAll("\\..*", "");
            ImportOptions options = ImportOptions.defaults().withWeightColumn(3).withKeepDuplicates(true);
            try (GraphFile file = GraphImporter.importEdgeList(edges, options, dir.resolve(name), null).file();
                 CarafeGraph g = CarafeGraph.create(rstore, name, file)) {
                assertEquals(edges == tenths ? Double.BYTES : Float.BYTES, file.header().weightBytes(), edges + ": weights as stored");
                Partitioning partitioning = Partitioning.compute(rstore, name, 2, 1, 1);
                int longest = 0;
                for (int index = 0; index < 2; index++) {
                    GatherPlan unsorted = GatherPlan.obtain(null, rstore, name, partitioning, index, false, true, false, new GatheredArrays());
                    GatherPlan sorted = GatherPlan.obtain(null, rstore, name, partitioning, index, false, true, true, new GatheredArrays());
                    assertArrayEquals(unsorted.start(), sorted.start());
                    for (int u = 0; u + 1 < sorted.start().length; u++) {
                        List<String> want = new ArrayList<>();
                        List<String> got = new ArrayList<>();
                        for (int e = sorted.start()[u]; e < sorted.start()[u + 1]; e++) {
                            want.add(unsorted.source()[e] + "@" + unsorted.weights().get(e));
                            got.add(sorted.source()[e] + "@" + sorted.weights().get(e));
                            if (e > sorted.start()[u]) {
                                assertTrue(sorted.source()[e - 1] <= sorted.source()[e], edges + ": slots ascending in the list of " + u);
                            }
                        }
                        want.sort(null);
                        got.sort(null);
                        assertEquals(want, got, edges + ": the (slot, weight) pairs of local vertex " + u + " of partition " + index);
                        longest = Math.max(longest, want.size());
                    }
                }
                if (edges != tenths && edges != halves) {
                    continue;
                }
                assertTrue(longest >= 2_000, edges + ": the hub's list has " + longest + " in-edges");
            }
        }
    }

    /**
     * 20,000 random edges among 500 vertices and 3,000 more into vertex 7 (a hub, from 400
     * sources, so repeated), weighing 1 to 100 times {@code 1 / denominator}.
     */
    private static Path randomEdges(Path file, int denominator) throws IOException {
        StringBuilder lines = new StringBuilder();
        java.util.Random random = new java.util.Random(3);
        for (int e = 0; e < 23_000; e++) {
            int target = e < 20_000 ? random.nextInt(500) : 7;
            int source = e < 20_000 ? random.nextInt(500) : random.nextInt(400);
            lines.append(source).append(' ').append(target).append(' ').append((random.nextInt(100) + 1) / (double) denominator).append('\n');
        }
        return Files.writeString(file, lines);
    }

    @Test
    void shouldMakeADamagedPlanAgainAndReplaceIt() throws IOException {
        try (GraphFile file = GraphImporter.importEdgeList(SharedData.file("snap/wiki-Vote.txt"), ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "vote", file)) {
            Partitioning partitioning = Partitioning.compute(rstore, "vote", 2, 1, 1);
            Path plans = dir.resolve("plans");
            GatherPlan made = GatherPlan.obtain(plans, rstore, "vote", partitioning, 1, false, false, true, new GatheredArrays());
            Path plan = planFiles(plans).getFirst();
            byte[] bytes = Files.readAllBytes(plan);
            for (long at : new long[] {bytes.length / 2, bytes.length - 3, 9}) {
                byte[] damaged = bytes.clone();
                damaged[(int) at] ^= 0x10;
                Files.write(plan, damaged);
                GatherPlan again = GatherPlan.obtain(plans, rstore, "vote", partitioning, 1, false, false, true, new GatheredArrays());
                assertSame(made, again, "byte " + at + " damaged");
                assertArrayEquals(bytes, Files.readAllBytes(plan), "byte " + at + " damaged: the plan was written again");
            }
            Files.write(plan, Arrays.copyOf(bytes, bytes.length / 3));
            assertSame(made, GatherPlan.obtain(plans, rstore, "vote", partitioning, 1, false, false, true, new GatheredArrays()), "a file cut short");
            for (int at = 0; at < 512; at += 4) { // wherever a length lies, nothing is allocated for it: the plan is made again
                byte[] lying = bytes.clone();
                lying[at] = (byte) 0xff;
                lying[at + 1] = (byte) 0xff;
                lying[at + 2] = (byte) 0xff;
                lying[at + 3] = (byte) 0x7f;
                Files.write(plan, lying);
                assertSame(made, GatherPlan.obtain(plans, rstore, "vote", partitioning, 1, false, false, true, new GatheredArrays()),
                        "2^31 - 1 written at byte " + at);
            }
        }
    }

    /**
     * Two edge lists of one size and modification time and the same vertex and edge counts
     * but other edges: the graph header says they are the same graph (as for a source
     * rewritten in place within the clock's resolution); the plan's samples tell them apart.
     */
    @Test
    void shouldNeverGatherAGraphWithOtherEdgesAlongAPlanOfTheSameIdentity() throws IOException {
        int n = 400;
        StringBuilder ring = new StringBuilder();
        StringBuilder shifted = new StringBuilder();
        for (int v = 0; v < n; v++) {
            ring.append(String.format("%03d %03d%n", v, (v + 1) % n));
            shifted.append(String.format("%03d %03d%n", v, (v + 7) % n));
        }
        Path first = Files.writeString(Files.createDirectories(dir.resolve("a")).resolve("ring.txt"), ring);
        Path second = Files.writeString(Files.createDirectories(dir.resolve("b")).resolve("ring.txt"), shifted);
        Files.setLastModifiedTime(second, Files.getLastModifiedTime(first));
        Path plans = dir.resolve("plans");
        GatherPlan ofFirst;
        GraphHeader firstHeader;
        try (GraphFile file = GraphImporter.importEdgeList(first, ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "ring", file)) {
            firstHeader = file.header();
            ofFirst = GatherPlan.obtain(plans, rstore, "ring", Partitioning.compute(rstore, "ring", 2, 1, 1), 0, false, false, false, new GatheredArrays());
        }
        CarafeGraph.delete(rstore, "ring");
        try (GraphFile file = GraphImporter.importEdgeList(second, ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "ring", file)) {
            Partitioning partitioning = Partitioning.compute(rstore, "ring", 2, 1, 1);
            assertTrue(CarafeGraph.header(rstore, "ring").sameGraphAs(firstHeader), "the control: the headers name one graph");
            GatherPlan kept = GatherPlan.obtain(plans, rstore, "ring", partitioning, 0, false, false, false, new GatheredArrays());
            GatherPlan made = GatherPlan.obtain(null, rstore, "ring", partitioning, 0, false, false, false, new GatheredArrays());
            assertSame(made, kept, "the second graph's plan");
            assertNotEquals(Arrays.toString(ofFirst.source()), Arrays.toString(made.source()), "the control: the plans differ");
        }
    }

    /**
     * Over its budget, a directory loses its least recently used plans first (a plan read is
     * used then), never the one just written, and keeps what else is in it.
     */
    @Test
    void shouldEvictTheLeastRecentlyUsedPlansBeyondTheBudget() throws IOException {
        try (GraphFile file = GraphImporter.importEdgeList(SharedData.file("snap/wiki-Vote.txt"), ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "vote", file)) {
            Path plans = dir.resolve("plans");
            Partitioning partitioning = Partitioning.compute(rstore, "vote", 4, 1, 1);
            for (int index = 0; index < 4; index++) {
                GatherPlan.obtain(plans, rstore, "vote", partitioning, index, false, false, false, new GatheredArrays());
            }
            List<Path> files = planFiles(plans);
            assertEquals(4, files.size());
            Path other = Files.writeString(plans.resolve("notes.txt"), "not a plan");
            long now = System.currentTimeMillis();
            for (int i = 0; i < 4; i++) { // files.get(0) used longest ago, files.get(3) last
                Files.setLastModifiedTime(files.get(i), FileTime.fromMillis(now - 60_000L * (4 - i)));
            }
            GatherPlan.evictBeyond(plans, Files.size(files.get(0)) + Files.size(files.get(3)), files.get(0)); // room for two
            assertTrue(Files.exists(files.get(0)), "the plan just written stays, however old");
            assertTrue(Files.notExists(files.get(1)) && Files.notExists(files.get(2)), "the least recently used others go");
            assertTrue(Files.exists(files.get(3)), "the most recently used stays");
            assertTrue(Files.exists(other), "what is not a plan stays");
            for (int index = 0; index < 4; index++) { // the plans gone are made again; the others read, which marks them used
                GatherPlan.obtain(plans, rstore, "vote", partitioning, index, false, false, false, new GatheredArrays());
            }
            assertEquals(4, planFiles(plans).size());
            assertTrue(Files.getLastModifiedTime(files.get(3)).toMillis() >= now - 1000, "a plan read is marked used");
        }
    }

    @Test
    void shouldMakeThePlanWhereTheDirectoryCannotBeWritten() throws IOException {
        try (GraphFile file = GraphImporter.importEdgeList(SharedData.file("snap/wiki-Vote.txt"), ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "vote", file)) {
            Partitioning partitioning = Partitioning.compute(rstore, "vote", 2, 1, 1);
            Path notADirectory = Files.writeString(dir.resolve("plans-file"), "a file where the directory would be");
            Path plans = notADirectory.resolve("plans");
            GatherPlan made = GatherPlan.obtain(plans, rstore, "vote", partitioning, 0, false, false, false, new GatheredArrays());
            assertSame(GatherPlan.obtain(null, rstore, "vote", partitioning, 0, false, false, false, new GatheredArrays()), made, "made all the same");
            assertEquals("a file where the directory would be", Files.readString(notADirectory));
        }
    }

    /**
     * A plan made for a job is written behind it: the job has the plan at once, and its end
     * waits for the file, which the next job reads. A writer whose wait is over is stopped
     * and leaves a whole plan or none, never a temporary file; a job's own interrupt is kept
     * for it while it waits.
     */
    @Test
    void shouldWriteAPlanBehindTheJobWithinItsBound() throws Exception {
        try (GraphFile file = GraphImporter.importEdgeList(SharedData.file("snap/wiki-Vote.txt"), ImportOptions.defaults(), dir, null).file();
             CarafeGraph g = CarafeGraph.create(rstore, "vote", file)) {
            Partitioning partitioning = Partitioning.compute(rstore, "vote", 2, 1, 1);
            Path plans = dir.resolve("plans");
            GatherPlan.Obtained behind = GatherPlan.obtainWritingBehind(plans, rstore, "vote", partitioning, 0, false, false, true,
                    new GatheredArrays());
            assertSame(GatherPlan.obtain(null, rstore, "vote", partitioning, 0, false, false, true, new GatheredArrays()), behind.plan(),
                    "the plan the job gets");
            Thread.currentThread().interrupt();
            assertTrue(behind.awaitKept(GatherPlan.KEEP_WAIT_NANOS), "written within the bound");
            assertTrue(Thread.interrupted(), "the waiting thread's interrupt is kept");
            assertEquals(1, planFiles(plans).size());
            byte[] whole = Files.readAllBytes(planFiles(plans).getFirst());
            GatherPlan.Obtained kept = GatherPlan.obtainWritingBehind(plans, rstore, "vote", partitioning, 0, false, false, true, new GatheredArrays());
            assertEquals(null, kept.writer(), "a plan read needs no writing");
            assertSame(behind.plan(), kept.plan(), "read back");

            for (int round = 0; round < 20; round++) { // the writer stopped at whatever point it has reached
                for (Path p : planFiles(plans)) {
                    Files.delete(p);
                }
                GatherPlan.Obtained cut = GatherPlan.obtainWritingBehind(plans, rstore, "vote", partitioning, 0, false, false, true,
                        new GatheredArrays());
                cut.awaitKept(0);
                cut.writer().join(10_000);
                assertTrue(!cut.writer().isAlive(), "the stopped writer ends");
                List<Path> left = planFiles(plans); // and no temporary file
                if (!left.isEmpty()) {
                    assertArrayEquals(whole, Files.readAllBytes(left.getFirst()), "a plan left by a stopped writer is whole");
                }
            }
        }
    }

    /** The plans in the directory, in name order; no temporary file may be left. */
    private static List<Path> planFiles(Path plans) throws IOException {
        try (Stream<Path> files = Files.list(plans)) {
            List<Path> all = new ArrayList<>();
            for (Path p : files.sorted().toList()) {
                String name = p.getFileName().toString();
                assertTrue(!name.contains(".tmp-"), "no temporary file left: " + p);
                if (name.endsWith(".plan")) {
                    all.add(p);
                }
            }
            return all;
        }
    }

    private static void assertSame(GatherPlan expected, GatherPlan actual, String what) {
        assertArrayEquals(expected.counts(), actual.counts(), what + ": slot counts");
        assertArrayEquals(expected.base(), actual.base(), what + ": slot bases");
        assertArrayEquals(expected.mySlot(), actual.mySlot(), what + ": slots");
        assertArrayEquals(expected.outDegree(), actual.outDegree(), what + ": out-degrees");
        assertArrayEquals(expected.degree(), actual.degree(), what + ": degrees heard along");
        assertArrayEquals(expected.start(), actual.start(), what + ": in-list starts");
        assertArrayEquals(expected.source(), actual.source(), what + ": in-list slots");
        assertEquals(expected.weights() == null, actual.weights() == null, what + ": weights or none");
        if (expected.weights() != null) {
            assertEquals(expected.weights().length(), actual.weights().length(), what + ": weights");
            for (int k = 0; k < expected.weights().length(); k++) {
                assertEquals(expected.weights().get(k), actual.weights().get(k), what + ": weight " + k);
            }
        }
    }
}

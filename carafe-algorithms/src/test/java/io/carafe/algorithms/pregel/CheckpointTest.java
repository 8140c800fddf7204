package io.carafe.algorithms.pregel;

import io.carafe.algorithms.GraphTestBase;
import io.carafe.importer.GraphFile;
import io.carafe.importer.ImportOptions;
import io.carafe.pregel.ForwardingVertexProgram;
import io.carafe.pregel.MemoryLimitException;
import io.carafe.pregel.MemoryUse;
import io.carafe.pregel.Messaging;
import io.carafe.pregel.PregelException;
import io.carafe.pregel.PregelJob;
import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checkpoints and restarts with worker threads: a worker that fails at a random superstep
 * costs a restart from the latest complete checkpoint, and the answer is bit for bit the
 * undisturbed run's, for gathering, pushing with a combiner and pushing without one; a
 * checkpoint the failure interrupted is never used; without one, the job fails as before.
 * (Worker processes SIGKILLed: carafe-cli's PregelCommandsTest.)
 */
@Timeout(180)
class CheckpointTest extends GraphTestBase {

    /** {@code program}, whose compute throws at {@code superstep} on {@code vertex}, as many times as {@code failures} says. */
    static final class Failing extends ForwardingVertexProgram {
        private final long superstep;
        private final int vertex;
        private final AtomicInteger failures;

        Failing(VertexProgram program, long superstep, int vertex, AtomicInteger failures) {
            super(program);
            this.superstep = superstep;
            this.vertex = vertex;
            this.failures = failures;
        }

        @Override
        public void compute(Context ctx) {
            if (ctx.superstep() == superstep && ctx.vertex() == vertex && failures.getAndDecrement() > 0) {
                throw new IllegalStateException("vertex " + vertex + " fails in superstep " + superstep);
            }
            super.compute(ctx);
        }
    }

    private static VertexProgram program(String name) {
        return switch (name) {
            case "pagerank" -> new PageRank(0.85, 30, 0, false);
            case "sssp" -> new ShortestPaths(0);
            case "bfs" -> new BreadthFirstSearch(0);
            case "cdlp" -> new LabelPropagation(12);
            case "wcc" -> new AfforestComponents();
            case "sums" -> new NeighbourSums(12); // fails the job if a restarted worker reads other values than it restored
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** Every vertex's value as raw bits (doubles and longs alike), and the job deleted. */
    private static long[] bits(PregelJob.Result r) {
        try (r) {
            return r.longs(0);
        }
    }

    private PregelJob.Result run(VertexProgram program, Messaging messaging, PregelJob.Recovery recovery) {
        return PregelJob.run(rstore, "wiki", program, PregelJob.Options.defaults(2).withMessaging(messaging).withRecovery(recovery));
    }

    @ParameterizedTest
    @CsvSource({"pagerank, GATHER, 7", "pagerank, PUSH, 11", "sssp, PUSH, 13", "cdlp, PUSH, 17", "pagerank, HYBRID, 19", "bfs, HYBRID, 23", "wcc, PUSH, 29", "sums, PUSH, 31"})
    void shouldGiveTheUndisturbedAnswerAfterAWorkerFailsAtARandomSuperstep(String name, Messaging messaging, long seed) {
        try (GraphFile g = load("wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            PregelJob.Result undisturbed = run(program(name), messaging, PregelJob.Recovery.NONE);
            int supersteps = undisturbed.supersteps().size();
            long[] expected = bits(undisturbed);
            SplittableRandom random = new SplittableRandom(seed);
            // a program that reads newer values (WCC by hooking) takes as many supersteps as its
            // thread workers' interleaving lets it: the answer is the same, the count not, so it
            // fails in the first superstep after the first checkpoint (every 3), which every run reaches
            boolean sameSupersteps = !program(name).declaration().readsNewerValues();
            long failAt = sameSupersteps ? 3 + random.nextLong(supersteps - 4) : 3; // after the first checkpoint, before the last superstep
            int vertex = random.nextInt(expected.length);
            List<PregelJob.Restart> restarts = new ArrayList<>();
            Path checkpoints = dir.resolve("checkpoints");
            PregelJob.Result disturbed = run(new Failing(program(name), failAt, vertex, new AtomicInteger(1)), messaging,
                    new PregelJob.Recovery(3, checkpoints, 3, restarts::add, false));
            if (sameSupersteps) {
                assertEquals(supersteps, disturbed.supersteps().size(), "failed in superstep " + failAt);
            }
            assertEquals(1, disturbed.restarts().size());
            assertArrayEquals(expected, bits(disturbed), name + " failed in superstep " + failAt + " at vertex " + vertex);
            assertEquals(1, restarts.size());
            PregelJob.Restart restart = restarts.get(0);
            assertEquals(failAt, restart.failedInSuperstep());
            assertEquals(failAt / 3 * 3, restart.resumedFrom(), "the latest complete checkpoint");
            assertTrue(restart.failure().contains("fails in superstep " + failAt), restart.failure());
            assertTrue(isEmpty(checkpoints), "a job's checkpoints go when it ends");
        }
    }

    /**
     * A superstep that grows the process past the job's memory bound (vertex 3 takes 600 MB
     * in superstep 4, then waits for the abort) stops the job with the bound's own error,
     * naming that superstep and the figures; it is not restarted from a checkpoint, where it
     * would only grow again, and the memory the job held is given back.
     */
    @Test
    void shouldStopAJobThatPassesItsMemoryBoundAndNotRestartIt() {
        try (GraphFile g = load("wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            java.lang.foreign.Arena hog = java.lang.foreign.Arena.ofShared();
            long bound = MemoryUse.residentBytes() + (300L << 20);
            VertexProgram growing = new ForwardingVertexProgram(program("pagerank")) {
                @Override
                public void compute(Context ctx) {
                    if (ctx.superstep() == 4 && ctx.vertex() == 3) {
                        hog.allocate(600L << 20, 4096).fill((byte) 1); // resident: every page written
                        try {
                            Thread.sleep(2_000); // the coordinator samples every 20 ms; the abort ends the job before this does
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    super.compute(ctx);
                }
            };
            List<PregelJob.Restart> restarts = new ArrayList<>();
            MemoryLimitException e = assertThrows(MemoryLimitException.class, () -> PregelJob.run(rstore, "wiki", growing,
                    PregelJob.Options.defaults(2).withMaxMemoryBytes(bound).withRecovery(new PregelJob.Recovery(1, dir.resolve("checkpoints"), 3, restarts::add, false))));
            assertTrue(e.getMessage().startsWith("superstep 4 reached "), e.getMessage());
            assertTrue(e.getMessage().contains("(PregelJob.Options.maxMemoryBytes;"), "names the bound as the API does: " + e.getMessage());
            assertTrue(e.usedBytes() > bound && e.limitBytes() == bound, e.usedBytes() + " against " + bound);
            assertTrue(restarts.isEmpty(), "no restart: " + restarts);
            assertTrue(isEmpty(dir.resolve("checkpoints")), "a job's checkpoints go when it ends");
            hog.close();
            assertEquals(31, run(program("pagerank"), Messaging.GATHER, PregelJob.Recovery.NONE).supersteps().size(), "the cluster runs the next job");
        }
    }

    /**
     * Failing in superstep 5 with checkpoints every 3: the worker dies before writing its part
     * of checkpoint 6, which stays partial (the other worker may have written its own) and
     * is never used; the job goes on from checkpoint 3.
     */
    @Test
    void shouldNeverUseACheckpointTheFailureInterrupted() {
        try (GraphFile g = load("wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            long[] expected = bits(run(program("pagerank"), Messaging.GATHER, PregelJob.Recovery.NONE));
            List<PregelJob.Restart> restarts = new ArrayList<>();
            PregelJob.Result r = run(new Failing(program("pagerank"), 5, 3, new AtomicInteger(1)), Messaging.GATHER,
                    new PregelJob.Recovery(3, dir.resolve("checkpoints"), 1, restarts::add, false));
            assertArrayEquals(expected, bits(r));
            assertEquals(3, restarts.get(0).resumedFrom());
        }
    }

    /**
     * A job's checkpoint directory as a command killed in superstep 5 leaves it (copied then,
     * checkpoint 3 complete), resumed by a program whose state has another shape: refused,
     * saying why; the program that wrote it goes on from it.
     */
    @Test
    void shouldRefuseToResumeACheckpointOfAnotherShape() {
        try (GraphFile g = load("wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            Path checkpoints = dir.resolve("checkpoints");
            Path kept = dir.resolve("kept");
            VertexProgram copying = new ForwardingVertexProgram(program("pagerank")) {
                @Override
                public void compute(Context ctx) {
                    if (ctx.superstep() == 5 && ctx.vertex() == 3) {
                        copy(checkpoints, kept);
                    }
                    super.compute(ctx);
                }
            };
            long[] expected = bits(run(copying, Messaging.GATHER, new PregelJob.Recovery(3, checkpoints, 0, r -> { }, false)));
            VertexProgram oneGlobalMore = new ForwardingVertexProgram(program("pagerank")) {
                @Override
                public int globals() {
                    return super.globals() + 1;
                }
            };
            PregelException refused = assertThrows(PregelException.class,
                    () -> run(oneGlobalMore, Messaging.GATHER, new PregelJob.Recovery(3, kept, 0, r -> { }, true)));
            assertTrue(refused.getMessage().contains("checkpoint 3 in " + kept + " holds 2 aggregators and 1 globals, but the program"
                    + " declares 2 and 2"), refused.getMessage());
            assertTrue(java.nio.file.Files.isDirectory(kept.resolve("step-3")), "the refusal keeps the checkpoints");
            List<PregelJob.Restart> restarts = new ArrayList<>();
            assertArrayEquals(expected, bits(run(program("pagerank"), Messaging.GATHER, new PregelJob.Recovery(3, kept, 0, restarts::add, true))));
            assertEquals(3, restarts.get(0).resumedFrom());
        }
    }

    private static void copy(Path from, Path to) {
        try (var files = java.nio.file.Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                java.nio.file.Files.copy(f, to.resolve(from.relativize(f).toString()));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void shouldFailAsBeforeWithoutACheckpointOrRestartsLeft() {
        try (GraphFile g = load("wiki", shared("snap/wiki-Vote.txt"), ImportOptions.defaults())) {
            // no checkpoint yet: the failure in superstep 1 fails the job, saying why it did not restart
            PregelException early = assertThrows(PregelException.class, () -> run(new Failing(program("pagerank"), 1, 3, new AtomicInteger(1)),
                    Messaging.GATHER, new PregelJob.Recovery(3, dir.resolve("checkpoints"), 3, r -> { }, false)));
            assertTrue(early.getMessage().contains("fails in superstep 1"), early.getMessage());
            // a worker that fails every time: restarts run out
            VertexProgram always = new Failing(program("pagerank"), 4, 3, new AtomicInteger(Integer.MAX_VALUE));
            List<PregelJob.Restart> restarts = new ArrayList<>();
            PregelException exhausted = assertThrows(PregelException.class, () -> run(always, Messaging.PUSH,
                    new PregelJob.Recovery(2, dir.resolve("checkpoints"), 2, restarts::add, false)));
            assertTrue(exhausted.getMessage().contains("after 2 restart(s)"), exhausted.getMessage());
            assertEquals(2, restarts.size());
            assertTrue(rstore.namespaces().stream().noneMatch(ns -> ns.name().startsWith("carafe/job/")), "job namespaces are deleted");
            assertTrue(isEmpty(dir.resolve("checkpoints")));
        }
    }

    private static boolean isEmpty(Path directory) {
        try (var entries = Files.list(directory)) {
            return entries.findAny().isEmpty();
        } catch (java.nio.file.NoSuchFileException e) {
            return true;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

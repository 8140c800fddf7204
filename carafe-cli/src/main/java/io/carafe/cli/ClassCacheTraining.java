package io.carafe.cli;

import java.util.List;

/**
 * The training run behind {@code bin/carafe}'s class cache (JDK 25's AOT cache: classes
 * loaded and linked, and the methods' profiles, kept for later JVMs), on the quick start's
 * generated graph, so it runs offline on a fresh checkout: the quick start's PageRank, and a
 * BFS on the engine, whose job setup (the gather's slots, the hybrid's mailboxes) PageRank
 * does not run. A later engine job sets up from these profiles instead of interpreting that
 * code first (docs/benchmarks.md, "Starting from a class cache").
 *
 * <p>Two programs, not every kernel: the superstep loop's call to {@code compute} keeps the
 * types it saw in training, and past two the JIT stops inlining it. Training on all eight
 * kernels made the engine's kernels 5-8% slower to compute.
 */
public final class ClassCacheTraining {
    /** The source is vertex 1, which R-MAT's skew makes a hub of demo-rmat16. */
    static final List<List<String>> COMMANDS = List.of(
            List.of("pagerank", "--graph", "demo-rmat16"),
            List.of("sssp", "--graph", "demo-rmat16", "--hops", "-r", "1", "--algorithm", "pregel", "-n", "2"));

    private ClassCacheTraining() {
    }

    /** Runs every command; exits with the first failure's code, so no cache is kept from a broken run. */
    public static void main(String[] args) {
        for (List<String> command : COMMANDS) {
            int code = CarafeCli.commandLine().execute(command.toArray(String[]::new));
            if (code != 0) {
                System.err.println("carafe class-cache training: '" + String.join(" ", command) + "' exited with " + code);
                System.exit(code);
            }
        }
        System.exit(0);
    }
}

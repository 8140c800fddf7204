package io.carafe.cli;

import java.util.List;

/**
 * The training run behind {@code bin/carafe}'s class cache (JDK 25's AOT cache: classes
 * loaded and linked, and the methods' profiles, kept for later JVMs), on the quick start's
 * generated graph, so it runs offline on a fresh checkout: the quick start's PageRank, and
 * the same job with hybrid messaging, whose setup (the sparse supersteps' mailboxes and
 * edge offsets) the gathering job does not run and BFS, SSSP and programs with a combiner
 * do. A later
 * engine job sets up from these profiles instead of interpreting that code first
 * (docs/benchmarks.md, "Starting from a class cache").
 *
 * <p>PageRank both times, not other kernels: the superstep loop's call to {@code compute}
 * keeps the program types training saw, and HotSpot inlines a call site of at most two.
 * Training on all eight kernels made the engine's kernels 5-8% slower to compute.
 */
public final class ClassCacheTraining {
    static final List<List<String>> COMMANDS = List.of(
            List.of("pagerank", "--graph", "demo-rmat16"),
            List.of("pagerank", "--graph", "demo-rmat16", "--messaging", "hybrid"));

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

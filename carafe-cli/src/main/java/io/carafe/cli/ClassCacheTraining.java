package io.carafe.cli;

import java.util.List;

/**
 * The training run of {@code bin/carafe}'s class cache (JDK 25's AOT cache, made once per build
 * by bin/lib/common.sh): the quick start's job and each engine kernel a user runs by name,
 * one after another in one JVM on the small generated graph, so that the cache holds the
 * classes of them all, loaded and linked, and a command starts without loading them.
 * Not a user's command: it prints what the commands print, and exits 1 if one failed.
 */
final class ClassCacheTraining {
    /** The commands run, in order; the first is the quick start's. */
    static final List<List<String>> COMMANDS = List.of(
            List.of("pagerank", "--algorithm", "pregel", "--graph", "demo-rmat16"),
            List.of("sssp", "--hops", "--algorithm", "pregel", "--graph", "demo-rmat16", "--source", "1"),
            List.of("sssp", "--algorithm", "pregel", "--graph", "demo-rmat16", "--weights", "random", "--source", "1"),
            List.of("wcc", "--algorithm", "pregel", "--graph", "demo-rmat16"));

    private ClassCacheTraining() {
    }

    public static void main(String[] args) {
        for (List<String> command : COMMANDS) {
            int exit = CarafeCli.commandLine().execute(command.toArray(String[]::new));
            if (exit != 0) {
                System.err.println("class cache training: carafe " + String.join(" ", command) + " exited with " + exit);
                System.exit(1);
            }
        }
    }
}

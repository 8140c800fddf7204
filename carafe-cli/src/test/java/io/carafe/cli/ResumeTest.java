package io.carafe.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * carafe resume: a PageRank command SIGKILLed mid-job (coordinator, embedded cluster and
 * worker threads all gone) is run again from its latest checkpoint and writes what an
 * undisturbed run writes, byte for byte.
 */
@Timeout(300)
class ResumeTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = CarafeCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void shouldFinishAKilledCommandFromItsLatestCheckpoint() throws Exception {
        Path root = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(root != null && Files.exists(root.resolve("snap/wiki-Vote.txt")),
                "no shared/datasets beside the checkout: this test needs wiki-Vote");
        String graph = root.resolve("snap/wiki-Vote.txt").toString();
        String cache = dir.resolve("cache").toString();
        Run undisturbed = run("pagerank", "--algorithm", "pregel", "-g", graph, "--iterations", "300", "--cache-dir", cache, "-o", dir.resolve("undisturbed.tsv").toString());
        assertEquals(0, undisturbed.exit(), undisturbed.err());

        Path checkpoints = dir.resolve("checkpoints");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), CarafeCli.class.getName(),
                "pagerank", "--algorithm", "pregel", "-g", graph, "--iterations", "300", "--cache-dir", cache, "-o", dir.resolve("resumed.tsv").toString(),
                "--checkpoint-every", "10", "--checkpoint-dir", checkpoints.toString()));
        Process coordinator = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(dir.resolve("killed.err").toFile()).start();
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            Path job = null;
            while (job == null && coordinator.isAlive() && System.nanoTime() < until) {
                job = completeCheckpoint(checkpoints);
                Thread.sleep(5);
            }
            assertTrue(job != null, "a checkpoint was completed; the command said: " + Files.readString(dir.resolve("killed.err")));
            assertTrue(coordinator.isAlive(), "the command is still running when it is killed");
            coordinator.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no finally runs, the checkpoints stay
            assertFalse(Files.exists(dir.resolve("resumed.tsv")), "the killed command wrote no output");
            String said = Files.readString(dir.resolve("killed.err"));
            assertTrue(said.contains("carafe resume --job " + job.getFileName()), said);

            long latest;
            try (Stream<Path> steps = Files.list(job)) {
                latest = steps.map(p -> p.getFileName().toString()).filter(n -> n.matches("step-\\d+"))
                        .mapToLong(n -> Long.parseLong(n.substring(5))).max().orElseThrow();
            }
            java.io.PrintStream stderr = System.err;
            java.io.ByteArrayOutputStream progress = new java.io.ByteArrayOutputStream();
            System.setErr(new java.io.PrintStream(progress, true));
            Run resumed;
            try {
                resumed = run("resume", "--job", job.getFileName().toString(), "--checkpoint-dir", checkpoints.toString());
            } finally {
                System.setErr(stderr);
            }
            assertEquals(0, resumed.exit(), resumed.err() + progress);
            // it went on from the checkpoint: its first superstep is the checkpoint's
            assertTrue(progress.toString().contains("resuming the job from the checkpoint of superstep " + latest), progress.toString());
            assertFalse(progress.toString().contains("superstep   0:"), progress.toString());
            assertTrue(progress.toString().contains(String.format("superstep %3d:", latest)), progress.toString());
            assertEquals(Files.readString(dir.resolve("undisturbed.tsv")), Files.readString(dir.resolve("resumed.tsv")));
            assertFalse(Files.exists(job), "the job's checkpoints go when it ends");

            Run unknown = run("resume", "--job", "no-such-job", "--checkpoint-dir", checkpoints.toString());
            assertEquals(CommandLine.ExitCode.USAGE, unknown.exit());
            assertTrue(unknown.err().contains("no job 'no-such-job' with checkpoints in " + checkpoints), unknown.err());
        } finally {
            coordinator.destroyForcibly();
        }
    }

    /** The job directory holding a complete checkpoint, or null. */
    private static Path completeCheckpoint(Path checkpoints) {
        try (Stream<Path> jobs = Files.list(checkpoints)) {
            for (Path job : (Iterable<Path>) jobs::iterator) {
                try (Stream<Path> steps = Files.list(job)) {
                    if (steps.anyMatch(p -> p.getFileName().toString().matches("step-\\d+"))) {
                        return job;
                    }
                }
            }
        } catch (java.io.IOException e) {
            // not there yet
        }
        return null;
    }
}

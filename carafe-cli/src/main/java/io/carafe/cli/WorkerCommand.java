package io.carafe.cli;

import io.carafe.algorithms.pregel.Programs;
import io.carafe.pregel.PregelJob;
import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.cli.Secrets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

@Command(name = "worker",
        mixinStandardHelpOptions = true,
        header = "Run one partition worker of a Pregel job (started by carafe pagerank --worker-processes, or by hand).",
        description = {"Joins job --job in the cluster at --cluster as worker --index, knowing nothing else: the job's",
                "directory in RStore names the graph, the program, the partitioning, the mailboxes and the barrier.",
                "With --job -, it connects first and then reads the job's namespace from the first line of standard input",
                "(how a command starts its worker processes while it loads the graph); at the end of input it exits.",
                "Exits when the coordinator halts the job."})
final class WorkerCommand implements Callable<Integer> {
    @Option(names = "--cluster", required = true, paramLabel = "URI", description = "the cluster, e.g. rstore+tcp://HOST:7400")
    String cluster;

    @Option(names = "--job", required = true, paramLabel = "NAMESPACE", description = "the job's namespace, printed by the coordinator; - to read it from standard input")
    String job;

    @Option(names = "--index", required = true, description = "this worker's partition, 0..P-1")
    int index;

    @Option(names = "--superstep-timeout", paramLabel = "SECONDS", defaultValue = "600", description = "bound on any wait (default: ${DEFAULT-VALUE})")
    long timeoutSeconds;

    @Override
    public Integer call() {
        if (index < 0 || timeoutSeconds < 1) {
            throw new IllegalArgumentException("--index must be >= 0 and --superstep-timeout >= 1");
        }
        RStoreSettings settings = RStoreSettings.defaults().withClusterSecret(Secrets.fromEnvironment());
        try {
            if (job.equals("-")) {
                PregelJob.work(cluster, settings, this::jobFromInput, index, Programs::fromSpec, timeoutSeconds * 1000);
            } else {
                PregelJob.work(cluster, settings, job, index, Programs::fromSpec, timeoutSeconds * 1000);
            }
        } catch (RStoreException e) {
            if (e.code() != ErrorCode.ABORTED) {
                throw e;
            }
            // another worker failed and the coordinator says why; this one only stops
            System.err.printf("carafe worker %d: stopped, the coordinator aborted the job%n", index);
            return CarafeCli.EXIT_RSTORE;
        } catch (IllegalStateException | IllegalArgumentException | IndexOutOfBoundsException | ArithmeticException e) {
            // the program's own error (a call it did not declare, a bad vertex id): one line, which the coordinator shows
            System.err.printf("carafe worker %d: the program failed: %s%n", index, e);
            return CarafeCli.EXIT_RSTORE;
        }
        return 0;
    }

    /**
     * The job's namespace, the first line of standard input, waited for as long as a
     * superstep may take; null at the end of input (the command that started this worker
     * ran no job) or when none came within that bound.
     */
    private String jobFromInput() {
        CompletableFuture<String> line = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("carafe-worker-job").start(() -> {
            try {
                line.complete(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine());
            } catch (IOException e) {
                line.complete(null);
            }
        });
        try {
            String name = line.get(timeoutSeconds, TimeUnit.SECONDS);
            return name == null || name.isBlank() ? null : name.strip();
        } catch (TimeoutException e) {
            System.err.printf("carafe worker %d: no job came on standard input within %d s (--superstep-timeout); exiting%n", index, timeoutSeconds);
            return null;
        } catch (InterruptedException | ExecutionException e) {
            return null;
        }
    }
}

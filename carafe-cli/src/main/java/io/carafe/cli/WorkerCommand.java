package io.carafe.cli;

import io.carafe.algorithms.pregel.Programs;
import io.carafe.pregel.PregelJob;
import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.RStoreSettings;
import io.rstore.cli.Secrets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;

@Command(name = "worker",
        mixinStandardHelpOptions = true,
        header = "Run one partition worker of a Pregel job (started by carafe pagerank --worker-processes, or by hand).",
        description = {"Joins job --job in the cluster at --cluster as worker --index, knowing nothing else: the job's",
                "directory in RStore names the graph, the program, the partitioning, the mailboxes and the barrier.",
                "Exits when the coordinator halts the job."})
final class WorkerCommand implements Callable<Integer> {
    @Option(names = "--cluster", required = true, paramLabel = "URI", description = "the cluster, e.g. rstore+tcp://HOST:7400")
    String cluster;

    @Option(names = "--job", required = true, paramLabel = "NAMESPACE", description = "the job's namespace, printed by the coordinator")
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
            PregelJob.work(cluster, settings, job, index, Programs::fromSpec, timeoutSeconds * 1000);
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
}

package io.carafe.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.carafe.datasets.Datasets;
import io.carafe.pregel.Messaging;
import io.carafe.pregel.PregelJob;
import io.rstore.cli.JsonReport;
import io.rstore.config.Units;
import picocli.CommandLine.Option;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/** How a Pregel job runs and reports: shared by pagerank, sssp and wcc. */
final class EngineOptions {

    @Option(names = {"-w", "--workers"}, defaultValue = "2", description = "partition workers (default: ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--partition-weights", paramLabel = "A,B", defaultValue = "1,1", split = ",",
            description = "vertex weight a + b·degree for partitioning (default: ${DEFAULT-VALUE})")
    double[] partitionWeights;

    @Option(names = "--messaging", defaultValue = "auto", paramLabel = "auto|push|gather|hybrid",
            description = "push: a message per edge, combined by the sender; gather: a value per vertex, combined along in-edges by the"
                    + " receiver (PageRank); hybrid: gather or push per superstep, as the senders' edges are many or few (BFS);"
                    + " auto: hybrid when the program allows it, else push (default: ${DEFAULT-VALUE})")
    String messaging;

    @Option(names = "--neighbourhood-cache", paramLabel = "SIZE",
            description = "for programs that read other vertices' edges (tc, lcc) over tcp or RDMA: how much of the graph's edges each worker"
                    + " keeps (e.g. 1GiB; default: 64MiB); embedded and shm workers read the servers' memory itself and keep none")
    String neighbourhoodCache;

    @Option(names = "--max-memory", paramLabel = "SIZE|available|none", defaultValue = "available",
            description = "bound on the resident memory of this process and its worker processes while the job runs (e.g. 8GiB): past it the"
                    + " job stops with an error (exit code 6) instead of being killed by the kernel; available: what they hold when the job"
                    + " starts plus what the machine (or its cgroup) has available then; none: no bound (default: ${DEFAULT-VALUE})")
    String maxMemory;

    @Option(names = "--estimate",
            description = "print the memory the job would take at its peak, per process (graph, values, mailboxes, caches), and stop:"
                    + " from the graph file's header, before any cluster is started or reached and before loading; the job is not run")
    boolean estimate;

    @Option(names = "--superstep-timeout", paramLabel = "SECONDS", defaultValue = "600", description = "bound on one superstep (default: ${DEFAULT-VALUE})")
    long superstepTimeoutSeconds;

    @Option(names = "--format", defaultValue = "table", description = "table (for people) or json (a summary on stdout) (default: ${DEFAULT-VALUE})")
    String format;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "every vertex's value: .tsv, .csv or .txt, optionally .gz")
    Path output;

    @Option(names = "--metrics", paramLabel = "console|csv:DIR", description = "report Dropwizard metrics at the end")
    String metrics;

    @Option(names = {"-v", "--verify"}, description = "check the result against an independent implementation")
    boolean verify;

    @Option(names = {"-n", "--trials"}, paramLabel = "N", defaultValue = "1",
            description = "run the kernel N times on the loaded graph, like gapbs's -n: each trial and min/avg/max are reported;"
                    + " -o and --verify use the last (default: ${DEFAULT-VALUE})")
    int trials;

    @Option(names = "--worker-processes", description = "run each partition worker as a separate JVM (carafe worker) sharing nothing but the cluster")
    boolean workerProcesses;

    @Option(names = "--worker-launcher", paramLabel = "COMMAND",
            description = "with --worker-processes and --cluster: put COMMAND before each worker's command line, {index} replaced by the"
                    + " worker's index, to start it elsewhere, e.g. 'ssh node{index}' or 'ip netns exec host{index}' (words split at spaces;"
                    + " the JDK and class path must be at the same paths there)")
    String workerLauncher;

    @Option(names = "--checkpoint-every", paramLabel = "K", defaultValue = "0",
            description = "write a checkpoint after every K supersteps; a worker that fails then costs a restart from the latest one, not the job (default: 0, none)")
    int checkpointEvery;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR",
            description = "where checkpoints go, a directory per job removed when it ends; worker processes on other hosts must see it too"
                    + " (default: $CARAFE_CHECKPOINT_DIR, else $XDG_CACHE_HOME/carafe/checkpoints or ~/.cache/carafe/checkpoints)")
    Path checkpointDir;

    @Option(names = "--max-restarts", paramLabel = "N", defaultValue = "3", description = "restarts from a checkpoint before the job fails (default: ${DEFAULT-VALUE})")
    int maxRestarts;

    @Option(names = "--resume-checkpoints", hidden = true, paramLabel = "DIR", description = "carafe resume: go on from the latest checkpoint in DIR")
    Path resumeCheckpoints;

    /** Options only the Pregel engine reads: a kernel on threads of the command's process refuses them rather than ignore them. */
    private static final List<String> ENGINE_ONLY = List.of("--worker-processes", "--worker-launcher", "--messaging",
            "--partition-weights", "--neighbourhood-cache", "--superstep-timeout", "--checkpoint-every", "--checkpoint-dir", "--max-restarts", "--metrics",
            "--resume-checkpoints", "--max-supersteps", "--max-memory", "--estimate");

    /** Refuses, naming --algorithm pregel, the engine's options given to {@code algorithm}'s kernel {@code method}, which runs in this process. */
    static void refuseEngineOnly(CommandLine.Model.CommandSpec command, String method, String algorithm) {
        var parsed = command.commandLine().getParseResult();
        for (String option : ENGINE_ONLY) {
            if (parsed.hasMatchedOption(option)) {
                throw new IllegalArgumentException(option + " is an option of the Pregel engine, and " + method + " runs in this process:"
                        + " add --algorithm pregel to run " + algorithm + " on partition workers");
            }
        }
    }

    /** The file in a job's checkpoint directory that holds the command line that started it (carafe resume runs it again). */
    static final String COMMAND_FILE = "command.json";

    /** Where a job's checkpoints go when {@code --checkpoint-dir} is not given. */
    static Path defaultCheckpointDir() {
        return checkpointDir(null);
    }

    private static Path checkpointDir(Path given) {
        return (given != null ? given : Datasets.checkpointDir()).toAbsolutePath();
    }

    /**
     * Checkpoints and restarts as the options say, each restart told on {@code err}: the
     * job's checkpoint directory (under --checkpoint-dir, named after the graph and the
     * time) is made and {@code commandLine} recorded in it, so that carafe resume can run
     * the command again from its latest checkpoint if this process dies.
     */
    PregelJob.Recovery recovery(String graph, List<String> commandLine, PrintStream err) {
        checkRecovery();
        if (checkpointEvery == 0) {
            return PregelJob.Recovery.NONE;
        }
        Consumer<PregelJob.Restart> tell = r -> {
            if (r.failedInSuperstep() < 0) {
                err.printf("resuming the job from the checkpoint of superstep %d%n", r.resumedFrom());
            } else {
                err.printf("a worker failed in superstep %d (%s); restarting every worker from the checkpoint of superstep %d%n",
                        r.failedInSuperstep(), r.failure(), r.resumedFrom());
            }
        };
        if (resumeCheckpoints != null) {
            return new PregelJob.Recovery(checkpointEvery, resumeCheckpoints.toAbsolutePath(), maxRestarts, tell, true);
        }
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path job = checkpointDir(checkpointDir).resolve(graph.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + stamp + "-" + ProcessHandle.current().pid());
        try {
            Files.createDirectories(job);
            new ObjectMapper().writeValue(job.resolve(COMMAND_FILE).toFile(), commandLine);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the checkpoint directory " + job + ": " + e.getMessage(), e);
        }
        err.printf("checkpoints every %d supersteps in %s (should this command die: carafe resume --job %s)%n", checkpointEvery, job,
                job.getFileName());
        return new PregelJob.Recovery(checkpointEvery, job, maxRestarts, tell, false);
    }

    /** The checkpoint options fit together (a usage error otherwise). */
    private void checkRecovery() {
        if (checkpointEvery < 0 || maxRestarts < 0) {
            throw new IllegalArgumentException("--checkpoint-every and --max-restarts must be >= 0");
        }
        if (checkpointEvery == 0 && (checkpointDir != null || resumeCheckpoints != null)) {
            throw new IllegalArgumentException("--checkpoint-dir needs --checkpoint-every K");
        }
        if (checkpointEvery > 0 && trials != 1) {
            throw new IllegalArgumentException("--checkpoint-every runs one trial; leave out -n");
        }
    }

    /** --worker-launcher's words for worker {@code index}; empty without one. */
    List<String> launcher(int index) {
        if (workerLauncher == null) {
            return List.of();
        }
        return Arrays.stream(workerLauncher.trim().split("\\s+")).filter(w -> !w.isEmpty())
                .map(w -> w.replace("{index}", Integer.toString(index))).toList();
    }

    /**
     * Workers that a launcher starts may be on other hosts, which cannot reach the cluster this
     * process serves on loopback: they need a running one. Checked before anything is loaded.
     */
    void checkLauncher(ClusterOptions cluster) {
        cluster.settings(); // --chunk-size and --memory-servers, with the rest
        if (workerLauncher != null && cluster.cluster == null) {
            throw new IllegalArgumentException("--worker-launcher may start workers on other hosts, which cannot reach the cluster this command"
                    + " would serve on loopback: start one (bin/start-cluster, rstore master and rstore server) and give --cluster URI");
        }
    }

    PregelJob.Options options(long maxSupersteps) {
        JsonReport.json(format);
        if (partitionWeights.length != 2) {
            throw new IllegalArgumentException("--partition-weights takes two numbers, A,B");
        }
        if (metrics != null && !metrics.equals("console") && !metrics.startsWith("csv:")) {
            throw new IllegalArgumentException("--metrics must be console or csv:DIR, was " + metrics);
        }
        Trials.check(trials);
        Output.check(output, "-o");
        checkRecovery();
        if (workerLauncher != null && (!workerProcesses || launcher(0).isEmpty())) {
            throw new IllegalArgumentException(workerProcesses ? "--worker-launcher is empty; give a command such as 'ssh node{index}'"
                    : "--worker-launcher starts worker processes: add --worker-processes");
        }
        if (superstepTimeoutSeconds < 1) {
            throw new IllegalArgumentException("--superstep-timeout must be >= 1 second");
        }
        Messaging mode = switch (messaging) {
            case "auto" -> Messaging.AUTO;
            case "push" -> Messaging.PUSH;
            case "gather" -> Messaging.GATHER;
            case "hybrid" -> Messaging.HYBRID;
            default -> throw new IllegalArgumentException("--messaging must be auto, push, gather or hybrid, was " + messaging);
        };
        long cache = neighbourhoodCache == null ? PregelJob.Options.DEFAULT_NEIGHBOURHOOD_CACHE_BYTES : Units.parseBytes(neighbourhoodCache);
        return new PregelJob.Options(workers, partitionWeights[0], partitionWeights[1], maxSupersteps, superstepTimeoutSeconds * 1000, mode, cache,
                maxMemoryBytes(), null, PregelJob.Recovery.NONE, null);
    }

    /** --max-memory as PregelJob.Options takes it. */
    long maxMemoryBytes() {
        return switch (maxMemory) {
            case "available" -> PregelJob.Options.AVAILABLE_MEMORY;
            case "none" -> 0;
            default -> {
                long bytes;
                try {
                    bytes = Units.parseBytes(maxMemory);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--max-memory must be a size such as 8GiB, available or none, was " + maxMemory);
                }
                if (bytes < 1) {
                    throw new IllegalArgumentException("--max-memory must be a size above 0, available or none, was " + maxMemory);
                }
                yield bytes;
            }
        };
    }
}

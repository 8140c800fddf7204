package io.carafe.cli;

import io.carafe.pregel.MemoryUse;
import io.carafe.pregel.PregelException;
import io.carafe.pregel.Workers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** Partition workers as separate JVMs running {@code carafe worker}; they share nothing with this process but the cluster. */
final class ProcessWorkers implements Workers {
    private final long timeoutSeconds;
    private final IntFunction<List<String>> launcher;
    private final List<Process> processes = new ArrayList<>();
    private final Map<Integer, Long> pids = new HashMap<>(); // by worker index, the latest
    private final Map<Integer, Waiting> waiting = new HashMap<>(); // started ahead of their job (prestart), by index
    /** How long close() lets worker processes stop on their own before it kills them. */
    private static final long STOP_GRACE_MS = 2_000;
    /** This JVM's options that a worker's JVM takes too (see {@link #forwarded}). */
    private static final List<String> FORWARDED_OPTIONS = forwarded(ManagementFactory.getRuntimeMXBean().getInputArguments());

    /** {@code launcher}: the words put before worker i's command line (--worker-launcher), none to start it here. */
    ProcessWorkers(long timeoutSeconds, IntFunction<List<String>> launcher) {
        this.timeoutSeconds = timeoutSeconds;
        this.launcher = launcher;
    }

    /**
     * Of a JVM's options, those its worker processes take too: bin/carafe's class cache
     * (JDK 25's AOT cache) and its log settings, with which a worker starts from the same
     * cache (its classpath is this one) or, where the cache cannot serve (another host's
     * JDK), quietly without; and the JIT's inlining bound (bin/lib/common.sh) and the compile
     * commands a user gives in CARAFE_JAVA_OPTS (docs/carafe.md, "The JIT and your compute"),
     * which are about the loop a worker runs.
     */
    static List<String> forwarded(List<String> jvmOptions) {
        return jvmOptions.stream().filter(a -> a.startsWith("-XX:AOTCache=") || a.startsWith("-Xlog:aot") || a.startsWith("-Xlog:cds")
                || a.startsWith("-XX:CompileCommand=") || a.startsWith("-XX:InlineSmallCode=")).toList();
    }

    /** How long a worker's exit waits for the rest of its stderr (a grandchild may hold the pipe open). */
    private static final long EXIT_RELAY_MS = 2_000;

    /** The shell's convention, which Java's exitValue follows on Linux: 128 + N for a process killed by signal N. */
    static boolean killed(int status) {
        return status > 128 && status < 160;
    }

    /** "exited with code 2", "was killed by signal 9 (exit status 137)". */
    static String exit(int status) {
        return killed(status) ? "was killed by signal " + (status - 128) + " (exit status " + status + ")" : "exited with code " + status;
    }

    /**
     * Starts workers {@code 0..count-1} ahead of their job, so that their JVMs start and
     * connect to the cluster while this command loads the graph: each then waits for its
     * job's namespace on its standard input, which {@link #start} writes. One that is not
     * started by then ends at {@link #close} (its input closed), or on its own after the
     * superstep timeout.
     */
    void prestart(String clusterUri, int count) {
        for (int i = 0; i < count; i++) {
            Started worker = launch(clusterUri, "-", i);
            synchronized (processes) {
                waiting.put(i, new Waiting(clusterUri, worker));
            }
        }
    }

    @Override
    public Future<Void> start(String clusterUri, String jobNamespace, int index) {
        Waiting ahead;
        synchronized (processes) {
            ahead = waiting.remove(index);
        }
        if (ahead != null) {
            Process p = ahead.worker().process();
            if (ahead.clusterUri().equals(clusterUri) && p.isAlive()) {
                try (Writer job = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
                    job.write(jobNamespace + "\n");
                    return ahead.worker().done();
                } catch (IOException e) {
                    // it ended meanwhile: a new one below
                }
            }
            closeInput(p);
        }
        return launch(clusterUri, jobNamespace, index).done();
    }

    private static void closeInput(Process p) {
        try {
            p.getOutputStream().close();
        } catch (IOException e) {
            // it has ended
        }
    }

    /**
     * The command line of worker {@code index} in a JVM like this one, after whatever the
     * launcher puts before it: this JVM's java, class path and forwarded options.
     */
    static List<String> javaCommand(String clusterUri, String jobNamespace, int index, long timeoutSeconds) {
        // what the rdma transport needs as bin/ gives it: libdisni's directory, and sun.nio.ch for DiSNI
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Djava.library.path=" + System.getProperty("java.library.path")));
        command.addAll(FORWARDED_OPTIONS);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CarafeCli.class.getName(),
                "worker", "--cluster", clusterUri, "--job", jobNamespace, "--index", Integer.toString(index),
                "--superstep-timeout", Long.toString(timeoutSeconds)));
        return command;
    }

    /** A worker process and the future that ends with it. */
    private record Started(Process process, Future<Void> done) {
    }

    /** A worker started ahead of its job, for the cluster at {@code clusterUri}. */
    private record Waiting(String clusterUri, Started worker) {
    }

    /** Worker {@code index} as a process of its own, for job {@code jobNamespace} ("-": the one its standard input will name). */
    private Started launch(String clusterUri, String jobNamespace, int index) {
        List<String> command = new ArrayList<>(launcher.apply(index));
        command.addAll(javaCommand(clusterUri, jobNamespace, index, timeoutSeconds));
        try {
            Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            String[] lastLine = {""};
            // the worker's stderr goes on to ours as it comes, and its last line into the error if it fails
            Thread relay = Thread.ofPlatform().daemon().name("carafe-worker-" + index + "-stderr").start(() -> {
                try (var lines = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = lines.readLine()) != null; ) {
                        System.err.println(line);
                        if (!line.isBlank()) {
                            lastLine[0] = line;
                        }
                    }
                } catch (IOException e) {
                    // the process is gone; what it wrote is what we have
                }
            });
            synchronized (processes) {
                processes.add(p);
                pids.put(index, p.pid());
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            // a thread of its own waits for the exit: Process.onExit() finishes on the common fork-join pool,
            // which may be busy (or be the caller itself), and then a dead worker would go unnoticed
            Thread.ofPlatform().daemon().name("carafe-worker-" + index + "-exit").start(() -> {
                int status;
                try {
                    status = p.waitFor();
                    relay.join(EXIT_RELAY_MS); // what it wrote last, before its exit is told
                } catch (InterruptedException e) {
                    done.completeExceptionally(new PregelException("interrupted while waiting for worker process " + index, e));
                    return;
                }
                if (status == 0) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(new PregelException("worker process " + index + " (pid " + p.pid() + ") " + exit(status)
                            + (lastLine[0].isEmpty() ? "" : ": " + lastLine[0]), null));
                }
            });
            return new Started(p, done);
        } catch (IOException e) {
            throw new PregelException("cannot start worker process " + index + ": " + e.getMessage(), e);
        }
    }

    /** The resident memory of the worker processes still running, and of what they started (a launcher's command runs the worker under it). */
    @Override
    public long residentBytes() {
        List<Process> running;
        synchronized (processes) {
            running = processes.stream().filter(Process::isAlive).toList();
        }
        long sum = 0;
        for (Process p : running) {
            sum += Math.max(0, MemoryUse.residentBytes(p.pid()));
            for (ProcessHandle d : (Iterable<ProcessHandle>) p.descendants()::iterator) {
                sum += Math.max(0, MemoryUse.residentBytes(d.pid()));
            }
        }
        return sum;
    }

    /** "worker process 1 (pid 1234)": the pid of the job's latest process with that index. */
    @Override
    public String describe(int index) {
        Long pid;
        synchronized (processes) {
            pid = pids.get(index);
        }
        return "worker process " + index + (pid == null ? "" : " (pid " + pid + ")");
    }

    /**
     * Ends what still runs: asked to stop first, killed after {@link #STOP_GRACE_MS} (a stopped
     * process, SIGSTOP, cannot act on the request and would stay behind, holding its memory).
     */
    @Override
    public void close() {
        List<Process> all;
        synchronized (processes) {
            all = List.copyOf(processes);
            waiting.values().forEach(w -> closeInput(w.worker().process())); // no job comes: the end of its input ends a waiting worker
            waiting.clear();
        }
        all.forEach(Process::destroy);
        long deadline = System.nanoTime() + STOP_GRACE_MS * 1_000_000;
        for (Process p : all) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            }
        }
    }
}

package io.carafe.cli;

import io.carafe.pregel.PregelException;
import io.carafe.pregel.Workers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/** Partition workers as separate JVMs running {@code carafe worker}; they share nothing with this process but the cluster. */
final class ProcessWorkers implements Workers {
    private final long timeoutSeconds;
    private final List<Process> processes = new ArrayList<>();

    ProcessWorkers(long timeoutSeconds) {
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public Future<Void> start(String clusterUri, String jobNamespace, int index) {
        // what the rdma transport needs as bin/ gives it: libdisni's directory, and sun.nio.ch for DiSNI
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Djava.library.path=" + System.getProperty("java.library.path"),
                "-cp", System.getProperty("java.class.path"), CarafeCli.class.getName(),
                "worker", "--cluster", clusterUri, "--job", jobNamespace, "--index", Integer.toString(index),
                "--superstep-timeout", Long.toString(timeoutSeconds));
        try {
            Process p = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            synchronized (processes) {
                processes.add(p);
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            p.onExit().thenAccept(exited -> {
                if (exited.exitValue() == 0) {
                    done.complete(null);
                } else {
                    done.completeExceptionally(new PregelException("worker process " + index + " (pid " + exited.pid()
                            + ") exited with code " + exited.exitValue() + "; its error is above", null));
                }
            });
            return done;
        } catch (IOException e) {
            throw new PregelException("cannot start worker process " + index + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        synchronized (processes) {
            processes.forEach(Process::destroy);
        }
    }
}

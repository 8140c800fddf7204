package io.carafe.pregel;

import io.rstore.RStoreSettings;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Workers as threads of this process (the embedded default), each with its own RStore client; a job's workers share its gathered values. */
final class ThreadWorkers implements Workers {
    private final VertexProgram program;
    private final RStoreSettings settings;
    private final long timeoutMs;
    private final ExecutorService threads;
    /** The job whose workers were started last, and the gather arrays they share (a restarted job is a new namespace and gets new ones). */
    private String job;
    private GatheredArrays gathered;

    ThreadWorkers(VertexProgram program, RStoreSettings settings, int count, long timeoutMs) {
        this.program = program;
        this.settings = settings;
        this.timeoutMs = timeoutMs;
        AtomicInteger names = new AtomicInteger();
        // a thread each: pollers sharing a smaller pool would starve each other at the barrier
        this.threads = Executors.newFixedThreadPool(count, r -> {
            Thread t = new Thread(r, "carafe-worker-" + names.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public synchronized Future<Void> start(String clusterUri, String jobNamespace, int index) {
        if (!jobNamespace.equals(job)) {
            job = jobNamespace;
            gathered = new GatheredArrays();
        }
        return threads.submit(new PartitionWorker(clusterUri, settings, () -> jobNamespace, index, spec -> program, timeoutMs, gathered));
    }

    @Override
    public void close() {
        threads.shutdownNow();
        try {
            threads.awaitTermination(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package io.carafe.algorithms.resident;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed set of threads running parallel loops over {@code [0, n)} in chunks that each
 * thread claims as it finishes the last (R-MAT degrees are too skewed for equal shares).
 * The body runs a whole chunk, so nothing is allocated or boxed per element.
 */
public final class Parallel implements AutoCloseable {
    /** A loop's body over one chunk {@code [from, to)}. */
    public interface Range {
        void run(int from, int to);
    }

    private final int threads;
    private final ExecutorService pool;

    public Parallel(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, was " + threads);
        }
        this.threads = threads;
        this.pool = threads == 1 ? null : Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "carafe-kernel");
            t.setDaemon(true);
            return t;
        });
    }

    public int threads() {
        return threads;
    }

    /** What each thread runs once in {@link #onEveryThread}, knowing its index. */
    public interface PerThread {
        void run(int thread);
    }

    /**
     * Runs {@code body} once on each thread (index 0 to threads - 1), as an OpenMP parallel
     * region does, and returns when every one is done: for loops whose threads keep state
     * of their own (buckets, queues) and share the work through a counter of their own.
     */
    public void onEveryThread(PerThread body) {
        if (pool == null) {
            body.run(0);
            return;
        }
        List<Future<?>> running = new ArrayList<>(threads);
        for (int t = 0; t < threads; t++) {
            int thread = t;
            running.add(pool.submit(() -> body.run(thread)));
        }
        await(running);
    }

    /**
     * Runs {@code body} over {@code [0, n)} in chunks of {@code grain} (each chunk starts at a
     * multiple of it, however many threads), and returns when every chunk is done.
     */
    public void forEach(int n, int grain, Range body) {
        if (pool == null || n <= grain) {
            for (long from = 0; from < n; from += grain) { // long: no overflow near 2^31
                body.run((int) from, (int) Math.min(n, from + grain));
            }
            return;
        }
        AtomicLong next = new AtomicLong();
        Runnable claim = () -> {
            for (long from; (from = next.getAndAdd(grain)) < n; ) {
                body.run((int) from, (int) Math.min(n, from + grain));
            }
        };
        List<Future<?>> running = new ArrayList<>(threads);
        for (int t = 0; t < threads; t++) {
            running.add(pool.submit(claim));
        }
        await(running);
    }

    private static void await(List<Future<?>> running) {
        // compute on this process's own threads: they end when the loop does, or throw
        RuntimeException failure = null;
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while a parallel loop ran", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}

package io.carafe.pregel;

import java.util.Locale;

/**
 * A job's bound on memory, watched by the coordinator between its barrier polls: the
 * resident memory of this process (the coordinator, thread workers and an embedded
 * cluster's memory servers) plus that of its worker processes, sampled at most every
 * {@link #SAMPLE_MS} ms. Past the bound the job stops with a {@link MemoryLimitException}
 * that names the superstep and the figures: the coordinator aborts the barrier, and workers
 * see the abort within a few hundred thousand vertices of their pass, so the job ends by an
 * error of its own rather than by the kernel's OOM killer.
 */
final class MemoryBound {
    /** How often the memory is measured: often enough to catch a superstep's growth, rarely enough to cost nothing. */
    static final long SAMPLE_MS = 20;

    private final long limitBytes; // 0: no bound
    private final Workers workers;
    private long lastSample;
    private long peakBytes;

    /**
     * {@code limitBytes}: the bound, 0 for none, or {@link PregelJob.Options#AVAILABLE_MEMORY} for
     * what this process and its workers hold now plus what the machine (or cgroup) has available.
     */
    MemoryBound(long limitBytes, Workers workers) {
        this.workers = workers;
        if (limitBytes == PregelJob.Options.AVAILABLE_MEMORY) {
            long available = MemoryUse.availableBytes();
            long used = usedBytes();
            this.limitBytes = available < 0 || used < 0 ? 0 : used + available; // not Linux: no figures to bound by
        } else {
            this.limitBytes = limitBytes;
        }
    }

    long limitBytes() {
        return limitBytes;
    }

    /** The most this job was seen to use, or -1 if never measured. */
    long peakBytes() {
        return lastSample == 0 ? -1 : peakBytes;
    }

    private long usedBytes() {
        long self = MemoryUse.residentBytes();
        return self < 0 ? -1 : self + workers.residentBytes();
    }

    /** Measures (at most every {@link #SAMPLE_MS} ms) and throws if the job is past its bound; {@code superstep} -1 means setup. */
    void check(long superstep) {
        if (limitBytes <= 0) {
            return;
        }
        long now = System.nanoTime();
        if (lastSample != 0 && now - lastSample < SAMPLE_MS * 1_000_000) {
            return;
        }
        lastSample = now;
        long used = usedBytes();
        peakBytes = Math.max(peakBytes, used);
        if (used > limitBytes) {
            throw new MemoryLimitException((superstep < 0 ? "setup" : "superstep " + superstep) + " reached " + gigabytes(used)
                    + " of resident memory (this process and its worker processes), past the job's bound of " + gigabytes(limitBytes)
                    + " (PregelJob.Options.maxMemoryBytes; by default what the machine had available when the job started): the job was stopped"
                    + " before the machine ran out. Give it more memory servers or hosts to spread over (rstore://), fewer worker processes on"
                    + " this host, a combiner for its messages, or a larger bound if the machine has the memory", used, limitBytes);
        }
    }

    /** A size as people read it: GB with two decimals from 1 GB on, MB below. */
    static String gigabytes(long bytes) {
        return bytes >= 1_000_000_000L ? String.format(Locale.ROOT, "%.2f GB", bytes / 1e9) : String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }
}

package io.rstore.bench;

import java.util.Arrays;

/** Percentiles of latency samples in nanoseconds. Sorts the array it is given. */
record Percentiles(double p50, double p90, double p99, double p999, int samples) {

    static Percentiles of(long[] nanos) {
        Arrays.sort(nanos);
        return new Percentiles(at(nanos, 0.50), at(nanos, 0.90), at(nanos, 0.99), at(nanos, 0.999), nanos.length);
    }

    private static double at(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}

package io.rstore.bench;

import java.util.Arrays;
import java.util.function.ToDoubleFunction;

/** Percentiles of latency samples in nanoseconds. Sorts the array it is given. */
record Percentiles(double p50, double p90, double p99, double p999, int samples) {

    static Percentiles of(long[] nanos) {
        Arrays.sort(nanos);
        return new Percentiles(at(nanos, 0.50), at(nanos, 0.90), at(nanos, 0.99), at(nanos, 0.999), nanos.length);
    }

    /** Each percentile's median over several rounds. */
    static Percentiles medianOf(Percentiles[] rounds) {
        return new Percentiles(
                median(rounds, Percentiles::p50), median(rounds, Percentiles::p90),
                median(rounds, Percentiles::p99), median(rounds, Percentiles::p999),
                Arrays.stream(rounds).mapToInt(Percentiles::samples).sum());
    }

    private static double median(Percentiles[] rounds, ToDoubleFunction<Percentiles> pick) {
        double[] values = Arrays.stream(rounds).mapToDouble(pick).sorted().toArray();
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    private static double at(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}

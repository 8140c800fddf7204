package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A worker's side of the aggregators: what its vertices add during a superstep, and the
 * global values of the previous one. Called per vertex, so each aggregator's kind is an
 * int switched on rather than a record consulted.
 */
final class Aggregation {
    private static final int SUM = 0;
    private static final int MIN = 1;
    private static final int MAX = 2;

    private final Aggregator[] kinds;
    private final int[] doubleOp; // -1 for a long aggregator
    private final int[] longOp;   // -1 for a double aggregator
    private final double[] doubles;
    private final long[] longs;
    private final long[] previous; // raw bits

    Aggregation(List<Aggregator> aggregators) {
        this.kinds = aggregators.toArray(new Aggregator[0]);
        int n = kinds.length;
        this.doubleOp = new int[n];
        this.longOp = new int[n];
        this.doubles = new double[n];
        this.longs = new long[n];
        this.previous = new long[n];
        for (int i = 0; i < n; i++) {
            int op = switch (kinds[i].operation()) {
                case SUM -> SUM;
                case MIN -> MIN;
                case MAX -> MAX;
            };
            doubleOp[i] = kinds[i].isLong() ? -1 : op;
            longOp[i] = kinds[i].isLong() ? op : -1;
        }
    }

    /** At a superstep's start: last superstep's globals from the coordinator's area, and every aggregator at its identity. */
    void start(MemorySegment coordinatorArea) {
        for (int i = 0; i < kinds.length; i++) {
            previous[i] = BarrierAreas.aggregate(coordinatorArea, i);
            long identity = kinds[i].identityBits();
            longs[i] = identity;
            doubles[i] = Double.longBitsToDouble(identity);
        }
    }

    /** At a superstep's end: this worker's values into its barrier area. */
    void publish(MemorySegment area) {
        for (int i = 0; i < kinds.length; i++) {
            BarrierAreas.putAggregate(area, i, kinds[i].isLong() ? longs[i] : Double.doubleToRawLongBits(doubles[i]));
        }
    }

    void add(int i, double v) {
        switch (doubleOp[i]) {
            case SUM -> doubles[i] += v;
            case MIN -> doubles[i] = Math.min(doubles[i], v);
            case MAX -> doubles[i] = Math.max(doubles[i], v);
            default -> throw wrongType(i);
        }
    }

    void add(int i, long v) {
        switch (longOp[i]) {
            case SUM -> longs[i] += v;
            case MIN -> longs[i] = Math.min(longs[i], v);
            case MAX -> longs[i] = Math.max(longs[i], v);
            default -> throw wrongType(i);
        }
    }

    double previousDouble(int i) {
        if (doubleOp[i] < 0) {
            throw wrongType(i);
        }
        return Double.longBitsToDouble(previous[i]);
    }

    long previousLong(int i) {
        if (longOp[i] < 0) {
            throw wrongType(i);
        }
        return previous[i];
    }

    private IllegalArgumentException wrongType(int i) {
        return new IllegalArgumentException("aggregator " + i + " holds " + (kinds[i].isLong() ? "longs" : "doubles"));
    }
}

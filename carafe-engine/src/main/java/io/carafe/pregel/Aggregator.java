package io.carafe.pregel;

/**
 * A global aggregator: every vertex may add to it during a superstep; the master step and,
 * in the next superstep, every vertex read the result. Sum, min or max, over longs or
 * doubles.
 */
public record Aggregator(Operation operation, boolean isLong) {
    public enum Operation { SUM, MIN, MAX }

    public static Aggregator sumDouble() {
        return new Aggregator(Operation.SUM, false);
    }

    public static Aggregator minDouble() {
        return new Aggregator(Operation.MIN, false);
    }

    public static Aggregator maxDouble() {
        return new Aggregator(Operation.MAX, false);
    }

    public static Aggregator sumLong() {
        return new Aggregator(Operation.SUM, true);
    }

    public static Aggregator minLong() {
        return new Aggregator(Operation.MIN, true);
    }

    public static Aggregator maxLong() {
        return new Aggregator(Operation.MAX, true);
    }

    /** The identity as raw bits: what an aggregator holds before anything is added. */
    long identityBits() {
        return isLong ? switch (operation) {
            case SUM -> 0L;
            case MIN -> Long.MAX_VALUE;
            case MAX -> Long.MIN_VALUE;
        } : Double.doubleToRawLongBits(switch (operation) {
            case SUM -> 0.0;
            case MIN -> Double.POSITIVE_INFINITY;
            case MAX -> Double.NEGATIVE_INFINITY;
        });
    }

    /** Combines two values held as raw bits (longs as they are, doubles as their bits). */
    long combineBits(long a, long b) {
        if (isLong) {
            return switch (operation) {
                case SUM -> a + b;
                case MIN -> Math.min(a, b);
                case MAX -> Math.max(a, b);
            };
        }
        double x = Double.longBitsToDouble(a);
        double y = Double.longBitsToDouble(b);
        return Double.doubleToRawLongBits(switch (operation) {
            case SUM -> x + y;
            case MIN -> Math.min(x, y);
            case MAX -> Math.max(x, y);
        });
    }
}

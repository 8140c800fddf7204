package io.carafe.pregel;

/**
 * Combines messages to the same vertex before they are written: commutative and
 * associative, with an identity, so order and grouping never change the result.
 */
public enum Combiner {
    SUM(0.0) {
        @Override
        public double combine(double a, double b) {
            return a + b;
        }
    },
    MIN(Double.POSITIVE_INFINITY) {
        @Override
        public double combine(double a, double b) {
            return Math.min(a, b);
        }
    },
    MAX(Double.NEGATIVE_INFINITY) {
        @Override
        public double combine(double a, double b) {
            return Math.max(a, b);
        }
    };

    private final double identity;

    Combiner(double identity) {
        this.identity = identity;
    }

    public double identity() {
        return identity;
    }

    public abstract double combine(double a, double b);
}

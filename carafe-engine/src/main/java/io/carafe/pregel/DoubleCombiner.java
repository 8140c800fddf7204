package io.carafe.pregel;

/**
 * Sum, min and max over a message that is one double ({@link RecordLayout#DOUBLE}). The
 * engine works on such messages as plain doubles, and may gather them
 * ({@link Messaging#GATHER}).
 */
public enum DoubleCombiner implements Combiner {
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

    DoubleCombiner(double identity) {
        this.identity = identity;
    }

    public double identity() {
        return identity;
    }

    public abstract double combine(double a, double b);

    @Override
    public void identity(RecordView message) {
        message.setDouble(0, identity);
    }

    @Override
    public void combine(RecordView into, RecordView message) {
        into.setDouble(0, combine(into.getDouble(0), message.getDouble(0)));
    }
}

package io.carafe.pregel;

/** Sum, min and max over a message that is one long ({@link RecordLayout#LONG}). */
public enum LongCombiner implements Combiner {
    SUM(0) {
        @Override
        public long combine(long a, long b) {
            return a + b;
        }
    },
    MIN(Long.MAX_VALUE) {
        @Override
        public long combine(long a, long b) {
            return Math.min(a, b);
        }
    },
    MAX(Long.MIN_VALUE) {
        @Override
        public long combine(long a, long b) {
            return Math.max(a, b);
        }
    };

    private final long identity;

    LongCombiner(long identity) {
        this.identity = identity;
    }

    public long identity() {
        return identity;
    }

    public abstract long combine(long a, long b);

    @Override
    public void identity(RecordView message) {
        message.setLong(0, identity);
    }

    @Override
    public void combine(RecordView into, RecordView message) {
        into.setLong(0, combine(into.getLong(0), message.getLong(0)));
    }
}

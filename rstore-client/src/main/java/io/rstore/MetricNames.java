package io.rstore;

/**
 * The names of what a client measures, in the registry {@link RStore#metrics()} returns:
 * data-path latency timers and byte meters, and a timer per master call.
 */
public final class MetricNames {
    private MetricNames() {
    }

    /** Timer of reads: one operation in {@link #LATENCY_SAMPLE_EVERY} per mapping is timed. */
    public static final String READ_LATENCY = "rstore.read.latency";

    /** Timer of writes, sampled as reads are. */
    public static final String WRITE_LATENCY = "rstore.write.latency";

    /** Meter of bytes read, every operation counted. */
    public static final String READ_BYTES = "rstore.read.bytes";

    /** Meter of bytes written, every operation counted. */
    public static final String WRITE_BYTES = "rstore.write.bytes";

    /** The prefix of each master call's timer: {@code rstore.rpc.<call>}. */
    public static final String RPC_PREFIX = "rstore.rpc.";

    /**
     * One data-path operation in this many (per mapping) is timed: timing one costs two
     * clock reads and a timer update, about twice an 8-byte read. A power of two.
     */
    public static final int LATENCY_SAMPLE_EVERY = 16;
}

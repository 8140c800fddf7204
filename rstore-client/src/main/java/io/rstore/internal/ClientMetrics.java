package io.rstore.internal;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.UniformReservoir;

/**
 * The client's Dropwizard metrics. Timing one operation costs two clock reads and a timer
 * update (about twice an 8-byte read: docs/measure/notebook.md), so the data path times one
 * operation in {@link #LATENCY_SAMPLE_EVERY} per mapping; byte meters count every
 * operation. Timers use a uniform reservoir because its update allocates nothing (the
 * default exponentially decaying one allocates a sample per update).
 */
public final class ClientMetrics {
    public static final String READ_LATENCY = "rstore.read.latency";
    public static final String WRITE_LATENCY = "rstore.write.latency";
    public static final String READ_BYTES = "rstore.read.bytes";
    public static final String WRITE_BYTES = "rstore.write.bytes";
    public static final String RPC_PREFIX = "rstore.rpc.";

    /** One data-path operation in this many (per mapping) is timed; a power of two. */
    public static final int LATENCY_SAMPLE_EVERY = 16;

    public final MetricRegistry registry = new MetricRegistry();
    public final Timer readLatency = registry.register(READ_LATENCY, new Timer(new UniformReservoir()));
    public final Timer writeLatency = registry.register(WRITE_LATENCY, new Timer(new UniformReservoir()));
    public final Meter readBytes = registry.register(READ_BYTES, new CountingMeter());
    public final Meter writeBytes = registry.register(WRITE_BYTES, new CountingMeter());

    public Timer rpc(String name) {
        return registry.timer(RPC_PREFIX + name);
    }
}

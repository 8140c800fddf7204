package io.rstore.internal;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.UniformReservoir;

/**
 * The client's Dropwizard metrics. Data-path timers use a uniform reservoir because its
 * update allocates nothing (the default exponentially decaying one allocates a sample
 * per update).
 */
public final class ClientMetrics {
    public static final String READ_LATENCY = "rstore.read.latency";
    public static final String WRITE_LATENCY = "rstore.write.latency";
    public static final String READ_BYTES = "rstore.read.bytes";
    public static final String WRITE_BYTES = "rstore.write.bytes";
    public static final String RPC_PREFIX = "rstore.rpc.";

    public final MetricRegistry registry = new MetricRegistry();
    public final Timer readLatency = registry.register(READ_LATENCY, new Timer(new UniformReservoir()));
    public final Timer writeLatency = registry.register(WRITE_LATENCY, new Timer(new UniformReservoir()));
    public final Meter readBytes = registry.meter(READ_BYTES);
    public final Meter writeBytes = registry.meter(WRITE_BYTES);

    public Timer rpc(String name) {
        return registry.timer(RPC_PREFIX + name);
    }
}

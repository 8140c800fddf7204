package io.rstore.internal;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.UniformReservoir;
import io.rstore.MetricNames;

/**
 * The client's Dropwizard metrics, named by {@link MetricNames}. Timing one operation costs
 * two clock reads and a timer update (docs/measure/notebook.md), so the data path times one
 * operation in {@link MetricNames#LATENCY_SAMPLE_EVERY} per mapping; byte meters count every
 * operation. Timers use a uniform reservoir because its update allocates nothing (the
 * default exponentially decaying one allocates a sample per update).
 */
public final class ClientMetrics {
    public final MetricRegistry registry = new MetricRegistry();
    public final Timer readLatency = registry.register(MetricNames.READ_LATENCY, new Timer(new UniformReservoir()));
    public final Timer writeLatency = registry.register(MetricNames.WRITE_LATENCY, new Timer(new UniformReservoir()));
    public final Meter readBytes = registry.register(MetricNames.READ_BYTES, new CountingMeter());
    public final Meter writeBytes = registry.register(MetricNames.WRITE_BYTES, new CountingMeter());

    public Timer rpc(String name) {
        return registry.timer(MetricNames.RPC_PREFIX + name);
    }
}

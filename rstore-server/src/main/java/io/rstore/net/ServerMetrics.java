package io.rstore.net;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.rstore.protocol.wire.CallNames;

/**
 * What a daemon's tcp port counts, in the daemon's registry under {@code PREFIX.}: each
 * call's latency ({@code call.NAME}, a timer), error answers, request and answer bytes,
 * connections open and refused, and the one-sided reads and writes it served with their
 * bytes (counted only: the data path takes no timestamps).
 */
public final class ServerMetrics {
    private final MetricRegistry registry;
    private final String prefix;
    private final Timer[] calls = new Timer[64];
    final Meter errors;
    final Meter bytesIn;
    final Meter bytesOut;
    final Counter connections;
    final Meter refused;
    final Meter reads;
    final Meter writes;
    final Meter readBytes;
    final Meter writeBytes;

    public ServerMetrics(MetricRegistry registry, String prefix) {
        this.registry = registry;
        this.prefix = prefix;
        this.errors = registry.meter(prefix + ".errors");
        this.bytesIn = registry.meter(prefix + ".bytes.in");
        this.bytesOut = registry.meter(prefix + ".bytes.out");
        this.connections = registry.counter(prefix + ".connections");
        this.refused = registry.meter(prefix + ".connections.refused");
        this.reads = registry.meter(prefix + ".data.reads");
        this.writes = registry.meter(prefix + ".data.writes");
        this.readBytes = registry.meter(prefix + ".data.read.bytes");
        this.writeBytes = registry.meter(prefix + ".data.write.bytes");
    }

    /** Metrics that go nowhere: for a server nobody watches. */
    public static ServerMetrics unobserved() {
        return new ServerMetrics(new MetricRegistry(), "rstore");
    }

    /** The latency timer of call {@code type} (made on its first use). */
    Timer call(int type) {
        int slot = type > 0 && type < calls.length ? type : 0; // 0: every type this version does not know
        Timer timer = calls[slot];
        if (timer == null) { // racing threads get the same timer from the registry
            timer = registry.timer(prefix + ".call." + CallNames.name(type));
            calls[slot] = timer;
        }
        return timer;
    }
}

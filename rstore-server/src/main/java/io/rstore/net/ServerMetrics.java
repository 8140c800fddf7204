package io.rstore.net;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.rstore.protocol.wire.CallNames;

import java.util.function.IntSupplier;

/**
 * What a daemon's tcp port counts, in the daemon's registry under {@code PREFIX.}: each
 * call's latency ({@code call.NAME}, a timer), error answers, request and answer bytes,
 * connections open and refused, and the one-sided reads and writes it served with their
 * bytes (counters, which take no timestamp: nothing on the data path reads a clock).
 */
public final class ServerMetrics {
    private final MetricRegistry registry;
    private final String prefix;
    private final Timer[] calls = new Timer[64];
    final Meter errors;
    final Meter bytesIn;
    final Meter bytesOut;
    final Meter refused;
    final Counter reads;
    final Counter writes;
    final Counter readBytes;
    final Counter writeBytes;

    public ServerMetrics(MetricRegistry registry, String prefix) {
        this.registry = registry;
        this.prefix = prefix;
        this.errors = registry.meter(prefix + ".errors");
        this.bytesIn = registry.meter(prefix + ".bytes.in");
        this.bytesOut = registry.meter(prefix + ".bytes.out");
        this.refused = registry.meter(prefix + ".connections.refused");
        this.reads = registry.counter(prefix + ".data.reads");
        this.writes = registry.counter(prefix + ".data.writes");
        this.readBytes = registry.counter(prefix + ".data.read.bytes");
        this.writeBytes = registry.counter(prefix + ".data.write.bytes");
    }

    /** The connections open now, as a gauge. */
    void connectionsOpen(IntSupplier open) {
        registry.gauge(prefix + ".connections", () -> open::getAsInt);
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

package io.rstore.net;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import com.codahale.metrics.jmx.JmxReporter;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * A daemon's metrics where operators look: over JMX (always, in the domain
 * {@code io.rstore}) and, when given a port, as Prometheus text at
 * {@code http://HOST:PORT/metrics}: gauges as gauges, counters (which here only grow) and
 * meters as counters ({@code _total}), timers and histograms as summaries (quantiles 0.5, 0.95, 0.99, {@code _count};
 * a timer's {@code _sum} is its mean times its count, as Dropwizard keeps no exact sum).
 */
public final class MetricsEndpoint implements AutoCloseable {
    private final JmxReporter jmx;
    private final HttpServer http; // null: no Prometheus port

    private MetricsEndpoint(JmxReporter jmx, HttpServer http) {
        this.jmx = jmx;
        this.http = http;
    }

    /** Reports {@code registry} over JMX and, with {@code prometheus} (else null), over HTTP there (port 0: any free one). */
    public static MetricsEndpoint start(MetricRegistry registry, InetSocketAddress prometheus) {
        JmxReporter jmx = JmxReporter.forRegistry(registry).inDomain("io.rstore").build();
        jmx.start();
        if (prometheus == null) {
            return new MetricsEndpoint(jmx, null);
        }
        try {
            HttpServer http = HttpServer.create(prometheus, 16);
            http.createContext("/metrics", exchange -> {
                try (exchange) {
                    if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                        exchange.sendResponseHeaders(405, -1);
                        return;
                    }
                    byte[] body = prometheus(registry).getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                    exchange.sendResponseHeaders(200, exchange.getRequestMethod().equals("HEAD") ? -1 : body.length);
                    if (exchange.getRequestMethod().equals("GET")) {
                        try (OutputStream out = exchange.getResponseBody()) {
                            out.write(body);
                        }
                    }
                }
            });
            http.start();
            return new MetricsEndpoint(jmx, http);
        } catch (IOException e) {
            jmx.stop();
            throw new IllegalArgumentException("cannot serve metrics on " + prometheus + ": " + e.getMessage()
                    + " (pick another rstore.metrics.port, or leave it empty for none)");
        }
    }

    /** The Prometheus port, or -1 if there is none. */
    public int port() {
        return http == null ? -1 : http.getAddress().getPort();
    }

    /** The registry in the Prometheus text format (version 0.0.4). */
    public static String prometheus(MetricRegistry registry) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Gauge> e : registry.getGauges().entrySet()) {
            if (e.getValue().getValue() instanceof Number n) {
                sample(out, name(e.getKey()), "gauge", n.doubleValue());
            }
        }
        for (Map.Entry<String, Counter> e : registry.getCounters().entrySet()) {
            sample(out, name(e.getKey()) + "_total", "counter", e.getValue().getCount());
        }
        for (Map.Entry<String, Meter> e : registry.getMeters().entrySet()) {
            sample(out, name(e.getKey()) + "_total", "counter", e.getValue().getCount());
        }
        for (Map.Entry<String, Timer> e : registry.getTimers().entrySet()) {
            Timer t = e.getValue();
            summary(out, name(e.getKey()) + "_seconds", t.getSnapshot(), 1e-9, t.getCount());
        }
        for (Map.Entry<String, Histogram> e : registry.getHistograms().entrySet()) {
            summary(out, name(e.getKey()), e.getValue().getSnapshot(), 1, e.getValue().getCount());
        }
        return out.toString();
    }

    private static void sample(StringBuilder out, String name, String type, double value) {
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n').append(name).append(' ').append(number(value)).append('\n');
    }

    private static void summary(StringBuilder out, String name, Snapshot s, double scale, long count) {
        out.append("# TYPE ").append(name).append(" summary\n");
        out.append(name).append("{quantile=\"0.5\"} ").append(number(s.getMedian() * scale)).append('\n');
        out.append(name).append("{quantile=\"0.95\"} ").append(number(s.get95thPercentile() * scale)).append('\n');
        out.append(name).append("{quantile=\"0.99\"} ").append(number(s.get99thPercentile() * scale)).append('\n');
        out.append(name).append("_sum ").append(number(s.getMean() * scale * count)).append('\n');
        out.append(name).append("_count ").append(count).append('\n');
    }

    /** rstore.master.call.openSession -> rstore_master_call_openSession: what Prometheus allows in a name. */
    static String name(String dropwizard) {
        return dropwizard.replaceAll("[^A-Za-z0-9_:]", "_");
    }

    private static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.9g", v);
    }

    @Override
    public void close() {
        if (http != null) {
            http.stop(0);
        }
        jmx.stop();
    }
}

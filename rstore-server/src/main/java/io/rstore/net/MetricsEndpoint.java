package io.rstore.net;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import com.codahale.metrics.jmx.JmxReporter;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.rstore.config.Logs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

/**
 * A daemon's metrics where operators look: over JMX (always, in the domain
 * {@code io.rstore}) and, when given a port, in the Prometheus text format at
 * {@code http://HOST:PORT/metrics}, written by the Prometheus Java client: its bridge from
 * the Dropwizard registry (gauges, counters and meters as counters, timers and histograms
 * as summaries in seconds), with {@code # HELP} and {@code # TYPE} lines, the calls of the
 * master and of memory servers as one family each with a {@code call} label
 * ({@code rstore_master_call_seconds{call="alloc",quantile="0.99"}}), and the JVM's and the
 * process's own series (memory, threads, garbage collection, descriptors).
 */
public final class MetricsEndpoint implements AutoCloseable {
    /** Timers of control calls, by daemon: one family each, with a {@code call} label. */
    private static final List<String> CALL_PREFIXES = List.of("rstore.master.call.", "rstore.server.call.");

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
        PrometheusRegistry scraped = registryOf(registry);
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create(); // the text format, without _created series
        try {
            HttpServer http = HttpServer.create(prometheus, 16);
            http.createContext("/metrics", exchange -> {
                try (exchange) {
                    if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                        exchange.sendResponseHeaders(405, -1);
                        return;
                    }
                    ByteArrayOutputStream body = new ByteArrayOutputStream(1 << 14);
                    try {
                        writer.write(body, scraped.scrape());
                    } catch (RuntimeException e) { // said, rather than a connection closed without a word
                        Logs.get("rstore").error("the metrics endpoint cannot write the registry: " + e, e);
                        exchange.sendResponseHeaders(500, -1);
                        return;
                    }
                    exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
                    exchange.sendResponseHeaders(200, exchange.getRequestMethod().equals("HEAD") ? -1 : body.size());
                    if (exchange.getRequestMethod().equals("GET")) {
                        try (OutputStream out = exchange.getResponseBody()) {
                            body.writeTo(out);
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

    /** What the endpoint serves: {@code registry} through the Prometheus client's Dropwizard bridge, and the JVM's series. */
    static PrometheusRegistry registryOf(MetricRegistry registry) {
        PrometheusRegistry scraped = new PrometheusRegistry();
        DropwizardExports.builder().dropwizardRegistry(registry)
                .metricFilter((name, metric) -> CALL_PREFIXES.stream().noneMatch(name::startsWith))
                .register(scraped);
        for (String prefix : CALL_PREFIXES) {
            scraped.register(callTimers(registry, prefix));
        }
        JvmMetrics.builder().register(scraped);
        return scraped;
    }

    /**
     * The timers under {@code prefix} as one summary family, {@code rstore_master_call_seconds}
     * say, a data point per call labelled {@code call}: the client's Dropwizard bridge (1.3,
     * the newest served here) makes a family of each timer, and its label mapper cannot merge
     * them (a scrape fails with "duplicate metric name").
     */
    private static MultiCollector callTimers(MetricRegistry registry, String prefix) {
        String family = prefix.substring(0, prefix.length() - 1).replace('.', '_') + "_seconds";
        String daemon = prefix.startsWith("rstore.master") ? "the master" : "a memory server";
        return () -> {
            SummarySnapshot.Builder summary = SummarySnapshot.builder().name(family).help("Time " + daemon + " took to answer each call, by call");
            for (Map.Entry<String, Timer> e : registry.getTimers((name, metric) -> name.startsWith(prefix)).entrySet()) {
                Snapshot s = e.getValue().getSnapshot();
                long count = e.getValue().getCount();
                summary.dataPoint(SummarySnapshot.SummaryDataPointSnapshot.builder()
                        .labels(Labels.of("call", e.getKey().substring(prefix.length())))
                        .quantiles(Quantiles.of(new Quantile(0.5, s.getMedian() / 1e9), new Quantile(0.95, s.get95thPercentile() / 1e9),
                                new Quantile(0.99, s.get99thPercentile() / 1e9)))
                        .count(count)
                        .sum(s.getMean() / 1e9 * count) // Dropwizard keeps no exact sum: the reservoir's mean times the count
                        .build());
            }
            return MetricSnapshots.of(summary.build());
        };
    }

    /** The Prometheus port, or -1 if there is none. */
    public int port() {
        return http == null ? -1 : http.getAddress().getPort();
    }

    @Override
    public void close() {
        if (http != null) {
            http.stop(0);
        }
        jmx.stop();
    }
}

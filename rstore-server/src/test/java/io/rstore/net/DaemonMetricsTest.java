package io.rstore.net;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.cli.RStoreCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

import javax.management.ObjectName;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A master and a memory server process with their Prometheus ports, and what they count when a client works. */
@Timeout(120)
class DaemonMetricsTest {
    @RegisterExtension
    final JavaProcesses processes = new JavaProcesses(); // kills what each test started, after it

    @TempDir
    Path dir;

    @Test
    void shouldCountCallsBytesAndStateAndServeThemToPrometheus() throws Exception {
        Path conf = dir.resolve("rstore.conf");
        Files.writeString(conf, """
                rstore.chunk.size = 1MiB
                rstore.server.capacity = 64MiB
                rstore.shm.dir =
                rstore.rdma.device = none
                rstore.heartbeat = 200ms
                rstore.metrics.port = 0
                """);
        Process master = processes.start("io.rstore.cli.RStoreCli", "master", "--conf", conf.toString(), "--port", "0");
        int port = Integer.parseInt(JavaProcesses.awaitLine(master, "serving on 127\\.0\\.0\\.1:(\\d+)", 60).group(1));
        int masterMetrics = Integer.parseInt(JavaProcesses.awaitLine(master, "Prometheus at http://127\\.0\\.0\\.1:(\\d+)/metrics", 10).group(1));
        Process server = processes.start("io.rstore.cli.RStoreCli", "server", "--conf", conf.toString(), "--master", "127.0.0.1:" + port);
        int serverMetrics = Integer.parseInt(JavaProcesses.awaitLine(server, "Prometheus at http://127\\.0\\.0\\.1:(\\d+)/metrics", 60).group(1));

        String uri = "rstore+tcp://127.0.0.1:" + port;
        try (RStore client = RStore.connect(uri, RStoreSettings.defaults().withOperationTimeoutMs(5_000));
             Mapping m = client.createNamespace("counted").alloc(8192, AllocFlags.GROW).map(MapFlags.NONE)) {
            m.segment().set(ValueLayout.JAVA_LONG, 0, 99);
            m.write(); // 8 KiB to the server
            m.read(0, 8);

            String fromMaster = get(masterMetrics);
            assertEquals(1, value(fromMaster, "rstore_master_call_seconds_count{call=\"createNamespace\"}"));
            assertEquals(1, value(fromMaster, "rstore_master_namespaces"));
            assertEquals(1, value(fromMaster, "rstore_master_servers_alive"));
            assertTrue(value(fromMaster, "rstore_master_sessions") >= 1);
            assertTrue(fromMaster.contains("# TYPE rstore_master_call_seconds summary"), fromMaster);
            assertTrue(fromMaster.contains("# HELP rstore_master_call_seconds "), fromMaster);
            assertTrue(fromMaster.contains("rstore_master_call_seconds{call=\"alloc\",quantile=\"0.99\"} "), fromMaster);
            assertTrue(value(fromMaster, "jvm_threads_current") > 0, "the JVM's own series");

            String fromServer = get(serverMetrics);
            assertEquals(1, value(fromServer, "rstore_server_chunks"));
            assertEquals(1 << 20, value(fromServer, "rstore_server_used_bytes"));
            assertEquals(8192, value(fromServer, "rstore_server_data_write_bytes_total"));
            assertEquals(8, value(fromServer, "rstore_server_data_read_bytes_total"));
            assertTrue(value(fromServer, "rstore_server_call_seconds_count{call=\"allocateChunk\"}") >= 1);
            for (String scraped : List.of(fromMaster, fromServer)) {
                parsesAsPrometheusText(scraped);
            }

            // status as JSON: the master's version and uptime, each server's last heartbeat
            CommandLine cli = RStoreCli.commandLine();
            StringWriter out = new StringWriter();
            cli.setOut(new PrintWriter(out));
            assertEquals(0, cli.execute("status", "-c", uri, "--format", "json"));
            JsonNode status = new ObjectMapper().readTree(out.toString());
            assertEquals(RStore.VERSION, status.get("masterVersion").asText());
            assertTrue(status.get("masterUptimeMillis").asLong() > 0);
            long age = status.get("servers").get(0).get("heartbeatAgeMillis").asLong();
            assertTrue(age >= 0 && age < 2_000, "the last heartbeat was " + age + " ms ago at a 200 ms heartbeat");
        }
    }

    @Test
    void shouldPublishTheRegistryOverJmx() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        registry.counter("rstore.test.jmx.visible").inc(7);
        try (MetricsEndpoint endpoint = MetricsEndpoint.start(registry, null)) {
            assertEquals(-1, endpoint.port());
            var names = ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("io.rstore:name=rstore.test.jmx.visible,*"), null);
            assertEquals(1, names.size(), names.toString());
            assertEquals(7L, ManagementFactory.getPlatformMBeanServer().getAttribute(names.iterator().next(), "Count"));
        }
    }

    private static String get(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        return response.body();
    }

    /** The value of an unlabelled sample. */
    /**
     * Checks the text with the Prometheus project's own parser (Python's prometheus_client,
     * Debian's python3-prometheus-client, which .ci/run installs): every family has a type
     * and help, and every sample parses. Skipped, saying so, where that parser is missing.
     */
    private void parsesAsPrometheusText(String text) throws Exception {
        Path scraped = Files.writeString(dir.resolve("scraped.txt"), text);
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3"; // Debian's, with Debian's module
        Process p = new ProcessBuilder(python, "-c", """
                import sys
                from prometheus_client.parser import text_string_to_metric_families
                families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
                untyped = [f.name for f in families if f.type == 'unknown' or not f.documentation]
                assert not untyped, untyped
                print(len(families), sum(len(f.samples) for f in families))
                """, scraped.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        org.junit.jupiter.api.Assumptions.assumeFalse(out.contains("No module named 'prometheus_client'"),
                "no Prometheus text parser here (apt-get install python3-prometheus-client)");
        assertEquals(0, p.exitValue(), "the Prometheus parser refused the endpoint's text: " + out + "\n" + text);
        assertTrue(out.matches("\\d+ \\d+\\s*") && Integer.parseInt(out.split(" ")[0]) > 10, out);
    }

    private static long value(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(text);
        assertTrue(m.find(), "no sample " + name + " in\n" + text);
        return (long) Double.parseDouble(m.group(1));
    }
}

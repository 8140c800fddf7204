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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A master and a memory server process with their Prometheus ports, and what they count when a client works. */
@Timeout(120)
class DaemonMetricsTest {
    private final JavaProcesses processes = new JavaProcesses();

    @TempDir
    Path dir;

    @AfterEach
    void killAll() {
        processes.close();
    }

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
            assertEquals(1, value(fromMaster, "rstore_master_call_createNamespace_seconds_count"));
            assertEquals(1, value(fromMaster, "rstore_master_namespaces"));
            assertEquals(1, value(fromMaster, "rstore_master_servers_alive"));
            assertTrue(value(fromMaster, "rstore_master_sessions") >= 1);
            assertTrue(fromMaster.contains("# TYPE rstore_master_call_alloc_seconds summary"), fromMaster);
            assertTrue(fromMaster.contains("rstore_master_call_alloc_seconds{quantile=\"0.99\"} "), fromMaster);

            String fromServer = get(serverMetrics);
            assertEquals(1, value(fromServer, "rstore_server_chunks"));
            assertEquals(1 << 20, value(fromServer, "rstore_server_used_bytes"));
            assertEquals(8192, value(fromServer, "rstore_server_data_write_bytes_total"));
            assertEquals(8, value(fromServer, "rstore_server_data_read_bytes_total"));
            assertTrue(value(fromServer, "rstore_server_call_allocateChunk_seconds_count") >= 1);

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
    private static long value(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\S+)$").matcher(text);
        assertTrue(m.find(), "no sample " + name + " in\n" + text);
        return (long) Double.parseDouble(m.group(1));
    }
}

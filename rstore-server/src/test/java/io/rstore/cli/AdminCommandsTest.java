package io.rstore.cli;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.net.NetworkCluster;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AdminCommandsTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = RStoreCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return new Run(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void shouldShowStatusAndManageNamespacesOfARunningCluster() {
        RStoreSettings settings = RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withServerCapacityBytes(32 << 20).withMemoryServers(3);
        try (NetworkCluster cluster = NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0))) {
            String uri = "rstore+tcp://127.0.0.1:" + cluster.port();
            assertEquals(0, run("ns", "create", "graphs", "-c", uri).exit());
            try (RStore client = RStore.connect(uri); Mapping m = client.joinNamespace("graphs").alloc(3 << 20, AllocFlags.GROW).map(MapFlags.NONE)) {
                cluster.stopServer(2);
                Run status = run("status", "-c", uri);
                assertEquals(0, status.exit(), status.err());
                assertTrue(status.out().contains("DEAD"), status.out());
                assertTrue(status.out().contains("1 namespaces"), status.out());
                // the holder of the mapping shows among the clients, with its reference
                assertTrue(status.out().matches("(?s).*2 clients \\(this one included\\).*tcp client\\s+1\\n.*"), status.out());
                Run usage = run("usage", "-c", uri);
                assertEquals(0, usage.exit(), usage.err());
                // 3 MiB reserved of the 64 MiB live capacity (server 2 is dead), all of it allocated, one segment, mapped
                assertTrue(usage.out().matches("(?s).*graphs\\s+3 MiB\\s+4\\.7%\\s+3 MiB\\s+100%\\s+1\\s+1\\n.*"), usage.out());
                assertTrue(usage.out().contains("live capacity 64 MiB; unreserved 61 MiB"), usage.out());
                Run list = run("ns", "list", "--cluster", uri);
                assertTrue(list.out().matches("(?s).*graphs\\s+\\d+\\s+3 MiB\\s+3 MiB\\s+1\\s+1.*"), list.out());
                Run refused = run("ns", "delete", "graphs", "-c", uri);
                assertEquals(RStoreCli.EXIT_RSTORE_ERROR, refused.exit());
                assertTrue(refused.err().contains("SEGMENT_IN_USE"), refused.err());
            }
            assertEquals(0, run("ns", "delete", "graphs", "-c", uri).exit());
            Run missing = run("ns", "info", "graphs", "-c", uri);
            assertEquals(RStoreCli.EXIT_RSTORE_ERROR, missing.exit());
            assertTrue(missing.err().contains("NO_SUCH_NAMESPACE"), missing.err());
        }
        Run nobody = run("status", "-c", "rstore+tcp://127.0.0.1:1");
        assertEquals(RStoreCli.EXIT_RSTORE_ERROR, nobody.exit());
        assertTrue(nobody.err().contains("cannot reach the master"), nobody.err());
    }

    /** status, usage, ns list and doctor as JSON: the command, version, time and parameters, then what the table shows. */
    @Test
    void shouldReportStatusUsageNamespacesAndDoctorAsJson() throws Exception {
        RStoreSettings settings = RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withServerCapacityBytes(32 << 20).withMemoryServers(2);
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        try (NetworkCluster cluster = NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0))) {
            String uri = "rstore+tcp://127.0.0.1:" + cluster.port();
            assertEquals(0, run("ns", "create", "graphs", "-c", uri).exit());
            try (RStore client = RStore.connect(uri)) {
                client.joinNamespace("graphs").alloc(3 << 20, AllocFlags.GROW);
            }
            var status = json.readTree(run("status", "-c", uri, "--format", "json").out());
            assertEquals("rstore status", status.get("command").asText());
            assertEquals("rstore 0.1.0", status.get("version").asText());
            java.time.Instant.parse(status.get("timestamp").asText());
            assertEquals(2, status.get("servers").size());
            assertEquals(64L << 20, status.get("liveCapacityBytes").asLong());
            assertEquals(3L << 20, status.get("reservedBytes").asLong());
            var usage = json.readTree(run("usage", "-c", uri, "--format", "json").out());
            assertEquals("graphs", usage.get("namespaces").get(0).get("name").asText());
            assertEquals(61L << 20, usage.get("unreservedBytes").asLong());
            var list = json.readTree(run("ns", "list", "-c", uri, "--format", "json").out());
            assertEquals("rstore ns list", list.get("command").asText());
            assertEquals(3L << 20, list.get("namespaces").get(0).get("allocatedBytes").asLong());
            var doctor = json.readTree(run("doctor", "--format", "json").out());
            assertTrue(doctor.get("findings").has("rdmaDevices") && doctor.get("findings").has("autoPicks"), doctor.toString());
            assertTrue(doctor.get("rdmaDevices").isArray() && doctor.get("rdmaUsable").isBoolean(), doctor.toString());
            doctor.get("findings").fieldNames().forEachRemaining(key -> assertTrue(key.matches("[a-z][A-Za-z0-9]*"), "a JSON key with spaces: " + key));
            var schema = com.networknt.schema.JsonSchemaFactory.getInstance(com.networknt.schema.SpecVersion.VersionFlag.V202012)
                    .getSchema(java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "json.schema.json")));
            var info = json.readTree(run("ns", "info", "graphs", "-c", uri, "--format", "json").out());
            for (var report : java.util.List.of(status, usage, list, info, doctor)) { // docs/json.schema.json: one header for every command
                assertTrue(schema.validate(report).isEmpty(), schema.validate(report) + "\n" + report);
            }
            Run wrong = run("status", "-c", uri, "--format", "yaml");
            assertEquals(CommandLine.ExitCode.USAGE, wrong.exit());
            assertTrue(wrong.err().contains("--format must be table or json"), wrong.err());
        }
    }
}

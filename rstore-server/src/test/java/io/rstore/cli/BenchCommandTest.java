package io.rstore.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BenchCommandTest {

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = RStoreCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void shouldWriteEveryFigureAsJson() throws Exception {
        Run run = run("bench", "--format", "json", "-n", "2000", "-r", "3", "--control-max", "4MiB", "--bandwidth-max", "2MiB", "--in-flight", "1,4");
        assertEquals(0, run.exit(), run.err());
        JsonNode json = new ObjectMapper().readTree(run.out());
        var schema = com.networknt.schema.JsonSchemaFactory.getInstance(com.networknt.schema.SpecVersion.VersionFlag.V202012)
                .getSchema(java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "json.schema.json")));
        assertTrue(schema.validate(json).isEmpty(), "docs/json.schema.json: " + schema.validate(json));
        assertEquals("inproc", json.at("/setup/transport").asText());
        assertTrue(json.at("/setup/hugePages").isBoolean(), "the bench says how memory was obtained");
        assertEquals(2, json.get("controlPath").size(), "1 MiB and 4 MiB (the max)");
        for (JsonNode row : json.get("controlPath")) {
            assertTrue(row.get("reserveColdMicros").asDouble() > 0);
            assertTrue(row.get("mapCachedMicros").asDouble() > 0);
        }
        assertEquals(2, json.get("latency").size());
        for (JsonNode row : json.get("latency")) {
            assertEquals(6000, row.get("ops").asInt(), "3 rounds of 2000");
            double p50 = row.at("/rstoreNanos/p50").asDouble();
            assertTrue(p50 > 0 && p50 <= row.at("/rstoreNanos/p999").asDouble(), row.toString());
            assertTrue(row.at("/plainCopyNanos/p50").asDouble() > 0);
        }
        // two sizes (1 and 2 MiB) x read/write x two in-flight depths
        assertEquals(8, json.get("bandwidth").size());
        for (JsonNode row : json.get("bandwidth")) {
            assertTrue(row.get("rstoreGBps").asDouble() > 0 && row.get("plainCopyGBps").asDouble() > 0, row.toString());
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"tcp", "shm", "rdma"})
    void shouldMeasureTheNetworkAndSharedMemoryTransports(String transport) throws Exception {
        Run run = run("bench", "--transport", transport, "--format", "json", "-n", "1000", "-r", "1", "--control-max", "1MiB",
                "--bandwidth-max", "1MiB");
        assertEquals(0, run.exit(), run.err());
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertEquals(transport, json.at("/setup/transport").asText());
        assertTrue(json.at("/latency/0/rstoreNanos/p50").asDouble() > 0);
        assertTrue(json.at("/bandwidth/0/rstoreGBps").asDouble() > 0);
        // the baseline fits the transport: a plain socket for tcp, a copy out of a mapped file for shm
        assertEquals(!transport.equals("shm"), json.at("/socketBaseline/bulkGBps").asDouble() > 0, json.toString());
        assertEquals(transport.equals("shm") ? "a mapped file in /dev/shm" : "Arena.allocate", json.at("/setup/plainCopySource").asText());
    }

    @Test
    void shouldPrintATableForPeople() {
        Run run = run("bench", "-n", "1000", "--control-max", "1MiB", "--bandwidth-max", "1MiB");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("Control path"), run.out());
        assertTrue(run.out().contains("p99.9"), run.out());
        assertTrue(run.out().contains("plain copy"), run.out());
    }

    @Test
    void shouldRejectBadOptionsWithAUsageError() {
        Run transport = run("bench", "--transport", "pigeon");
        assertEquals(CommandLine.ExitCode.USAGE, transport.exit());
        assertTrue(transport.err().contains("--transport must be inproc, tcp, shm or rdma, was pigeon"), transport.err());
        Run size = run("bench", "--control-max", "lots");
        assertEquals(CommandLine.ExitCode.USAGE, size.exit());
        assertTrue(size.err().contains("is not a size"), size.err());
        Run chunk = run("bench", "--chunk-size", "3000", "-n", "1000");
        assertEquals(RStoreCli.EXIT_RSTORE_ERROR, chunk.exit());
        assertTrue(chunk.err().contains("chunkSizeBytes"), chunk.err());
    }
}

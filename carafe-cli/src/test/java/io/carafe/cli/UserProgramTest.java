package io.carafe.cli;

import io.carafe.pregel.Declaration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's vertex program, compiled here from source (the example of docs/carafe.md) into
 * a jar and run through carafe run, with threads and with worker processes; its output is
 * checked against the same rounds computed directly over the edge list.
 */
@Timeout(180)
class UserProgramTest {
    @TempDir
    Path dir;

    private Path jar() throws IOException {
        return jar("MaxLabel");
    }

    private Path jar(String name) throws IOException {
        return UserProgramJars.jar(dir, name);
    }

    /** A random graph on 300 ids (not contiguous) with 1,200 edges. */
    private Path graph(long[][] edges) throws IOException {
        StringBuilder text = new StringBuilder();
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < edges.length; i++) {
            edges[i][0] = 10 + 3L * random.nextInt(300);
            edges[i][1] = 10 + 3L * random.nextInt(300);
            text.append(edges[i][0]).append(' ').append(edges[i][1]).append('\n');
        }
        Path file = dir.resolve("g.txt");
        Files.writeString(file, text);
        return file;
    }

    /** The same rounds, synchronously over the edge list: label(v) = max(label(v), labels of in-neighbours). */
    private static Map<Long, Long> expected(long[][] edges, int rounds) {
        Map<Long, Long> label = new HashMap<>();
        for (long[] e : edges) {
            label.put(e[0], e[0]);
            label.put(e[1], e[1]);
        }
        for (int r = 0; r < rounds; r++) {
            Map<Long, Long> next = new HashMap<>(label);
            for (long[] e : edges) {
                next.merge(e[1], label.get(e[0]), Math::max);
            }
            label = next;
        }
        return label;
    }

    private int carafe(StringWriter out, String... args) {
        CommandLine cli = CarafeCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        String[] all = Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--cache-dir";
        all[args.length + 1] = dir.resolve("cache").toString();
        return cli.execute(all);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldRunAUsersProgramFromAJar(boolean processes) throws IOException {
        long[][] edges = new long[1200][2];
        Path graph = graph(edges);
        Path output = dir.resolve("labels.tsv");
        StringWriter out = new StringWriter();
        String[] args = {"run", "--program", jar() + ":MaxLabel", "--param", "rounds=4", "-g", graph.toString(), "--workers", "3", "-o", output.toString()};
        if (processes) {
            args = Arrays.copyOf(args, args.length + 1);
            args[args.length - 1] = "--worker-processes";
        }
        assertEquals(0, carafe(out, args), out.toString());
        Map<Long, Long> want = expected(edges, 4);
        Map<Long, Long> got = new HashMap<>();
        for (String line : Files.readAllLines(output)) {
            if (!line.equals("id\tvalue")) {
                String[] parts = line.split("\t");
                got.put(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
            }
        }
        assertEquals(want, got);
        assertNotEquals(expected(edges, 3), got, "the --param reached the program: 3 rounds give other labels");
        if (!processes) { // carafe run's JSON has the shape of every run (docs/json.schema.json)
            StringWriter json = new StringWriter();
            assertEquals(0, carafe(json, "run", "--program", jar() + ":MaxLabel", "-g", graph.toString(), "--format", "json"), json.toString());
            String text = json.toString();
            var report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(text.substring(text.indexOf('{')));
            var problems = CarafeCliTest.jsonSchema().validate(report);
            assertTrue(problems.isEmpty(), problems + "\n" + text);
        }
    }

    /** --estimate on a user's program: each process's parts and the total, and no job run (no -o written). */
    @Test
    void shouldEstimateAUsersProgramWithoutRunningIt() throws IOException {
        Path graph = graph(new long[1200][2]);
        Path output = dir.resolve("never.tsv");
        StringWriter out = new StringWriter();
        assertEquals(0, carafe(out, "run", "--program", jar() + ":MaxLabel", "--param", "rounds=4", "-g", graph.toString(), "--workers", "3",
                "--worker-processes", "--estimate", "-o", output.toString()), out.toString());
        String text = out.toString();
        assertTrue(text.contains("estimated memory at the job's peak:"), text);
        assertTrue(text.contains("this process (the coordinator, the memory servers):") && text.contains("worker process 2:")
                && text.contains("  values: each partition's, mapped") && text.contains("peak on this host, all its processes together: "), text);
        assertFalse(Files.exists(output), "the job did not run");
    }

    /** A program's own error in worker processes: exit 3, and the worker's one line in the coordinator's error. */
    @Test
    void shouldExitWithTheWorkersOwnErrorWhenTheProgramFailsInWorkerProcesses() throws IOException {
        long[][] edges = new long[200][2];
        Path graph = graph(edges);
        StringWriter out = new StringWriter();
        int code = carafe(out, "run", "--program", jar("UndeclaredInDegree") + ":UndeclaredInDegree", "-g", graph.toString(),
                "--workers", "2", "--worker-processes");
        assertEquals(CarafeCli.EXIT_RSTORE, code, out.toString());
        assertTrue(out.toString().contains("inDegree() on a directed graph needs a program that declares Declaration.readingInEdges()"), out.toString());
        assertTrue(out.toString().contains("exited with code 3: carafe worker "), "the worker exits 3 with one line, shown by the coordinator: " + out);
    }

    @Test
    void shouldExplainWhatItCannotRun() throws IOException {
        long[][] edges = new long[10][2];
        Path graph = graph(edges);
        StringWriter out = new StringWriter();
        assertNotEquals(0, carafe(out, "run", "--program", dir.resolve("none.jar") + ":X", "-g", graph.toString()));
        assertTrue(out.toString().contains("no jar at"), out.toString());
        Path jar = jar();
        out = new StringWriter();
        assertNotEquals(0, carafe(out, "run", "--program", jar + ":NoSuchClass", "-g", graph.toString()));
        assertTrue(out.toString().contains("no class NoSuchClass"), out.toString());
        out = new StringWriter();
        assertNotEquals(0, carafe(out, "run", "--program", jar.toString(), "-g", graph.toString()));
        assertTrue(out.toString().contains("--program takes JAR:CLASS"), out.toString());
        assertFalse(Files.exists(dir.resolve("cache")), "each was refused before the graph was imported");
    }
}

package io.carafe.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CarafeCliTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private Run run(String... args) {
        CommandLine cli = CarafeCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        String[] withCache = new String[args.length + 2];
        System.arraycopy(args, 0, withCache, 0, args.length);
        int exit;
        if (List.of("datasets", "graphs", "help").contains(args[0]) || List.of(args).contains("--help")) {
            exit = cli.execute(args);
        } else {
            withCache[args.length] = "--cache-dir";
            withCache[args.length + 1] = dir.resolve("cache").toString();
            exit = cli.execute(withCache);
        }
        return new Run(exit, out.toString(), err.toString());
    }

    private Path graph() throws IOException {
        Path file = dir.resolve("hand.e");
        Files.writeString(file, "# Nodes: 5 Edges: 5\n1 2 2\n2 3 1\n1 3 5\n4 1 1\n3 6 7\n");
        return file;
    }

    /**
     * A command line names one subcommand: only its model is built (the rest is start-up
     * spent for nothing), and it parses and runs as with every subcommand, --debug after the
     * name included. Without one, or for help, every subcommand is there.
     */
    @Test
    void shouldBuildOnlyTheSubcommandACommandLineNames() throws IOException {
        String[] args = {"--debug", "sssp", "-g", graph().toString(), "-r", "1", "--debug", "--cache-dir", dir.resolve("cache").toString()};
        CommandLine one = CarafeCli.commandLine(args);
        assertEquals(List.of("sssp"), List.copyOf(one.getSubcommands().keySet()));
        StringWriter out = new StringWriter();
        one.setOut(new PrintWriter(out));
        assertEquals(0, one.execute(args));
        assertTrue(out.toString().contains("sssp on hand: from 1 reached 4 of 5 vertices, largest distance 2"), out.toString());
        int every = CarafeCli.SUBCOMMANDS.size() + 1; // and help
        assertEquals(every, CarafeCli.commandLine(new String[] {"help", "sssp"}).getSubcommands().size());
        assertEquals(every, CarafeCli.commandLine(new String[] {"--version"}).getSubcommands().size());
        assertEquals(every, CarafeCli.commandLine(new String[] {"no-such-command"}).getSubcommands().size());
        assertEquals(every, CarafeCli.commandLine().getSubcommands().size());
    }

    /** A Matrix Market file answers as its edge-list twin does, command by command (directed and weighted, then symmetric). */
    @Test
    void shouldAnswerOnAMatrixMarketFileAsOnItsEdgeListTwin() throws IOException {
        Path mtx = dir.resolve("hand.mtx");
        Files.writeString(mtx, "%%MatrixMarket matrix coordinate integer general\n% the hand graph, 7 rows\n7 7 5\n1 2 2\n2 3 1\n1 3 5\n4 1 1\n3 6 7\n");
        Path rows = Files.writeString(dir.resolve("rows.v"), "1\n2\n3\n4\n5\n6\n7\n");
        Path symmetric = dir.resolve("sym.mtx");
        Files.writeString(symmetric, "%%MatrixMarket matrix coordinate pattern symmetric\n7 7 4\n2 1\n3 2\n6 3\n7 5\n");
        Path twin = Files.writeString(dir.resolve("sym.txt"), "2 1\n3 2\n6 3\n7 5\n");
        List<String[]> commands = List.of(
                new String[] {"dijkstra", "--weight-column", "3", "-r", "1"},
                new String[] {"pagerank", "--algorithm", "pregel", "--iterations", "5"},
                new String[] {"sssp", "--weight-column", "3", "--source", "1", "--algorithm", "pregel"},
                new String[] {"wcc", "--algorithm", "pregel"});
        int k = 0;
        for (String[] command : commands) {
            for (boolean sym : new boolean[] {false, true}) {
                if (sym && command[0].equals("dijkstra") || sym && command[0].equals("sssp")) {
                    continue; // the symmetric file has no values
                }
                Path fromMtx = dir.resolve("mtx-" + k + ".tsv");
                Path fromTwin = dir.resolve("twin-" + k++ + ".tsv");
                List<String> a = new ArrayList<>(List.of(command));
                a.addAll(List.of("-g", (sym ? symmetric : mtx).toString(), "-o", fromMtx.toString()));
                List<String> b = new ArrayList<>(List.of(command));
                b.addAll(List.of("-g", (sym ? twin : graph()).toString(), "--vertices", rows.toString(), "-o", fromTwin.toString()));
                if (sym) {
                    b.add("-s");
                }
                Run onMtx = run(a.toArray(String[]::new));
                Run onTwin = run(b.toArray(String[]::new));
                assertEquals(0, onMtx.exit(), onMtx.err());
                assertEquals(0, onTwin.exit(), onTwin.err());
                assertEquals(Files.readAllLines(fromTwin), Files.readAllLines(fromMtx), String.join(" ", command) + (sym ? " (symmetric)" : ""));
            }
        }
        Path fresh = Files.copy(mtx, dir.resolve("fresh.mtx"));
        Run imported = run("import", "-g", fresh.toString());
        assertEquals(0, imported.exit(), imported.err());
        assertTrue((imported.out() + imported.err()).contains("Matrix Market, integer general: 7 x 7, 5 entries"), imported.out() + imported.err());
    }

    /**
     * A graph of names answers as its integer twin does, with names wherever ids were:
     * the twin numbers the vertices in the order the names first appear, as the import does.
     */
    @Test
    void shouldAnswerOnAGraphOfNamesAsOnItsIntegerTwin() throws IOException {
        List<String> names = List.of("alice", "bob", "carol", "dave", "erin", "frank");
        Path named = Files.writeString(dir.resolve("people.txt"), "alice bob 2\nbob carol 1\nalice carol 5\ndave alice 1\ncarol erin 7\nfrank frank 1\n");
        Path twin = Files.writeString(dir.resolve("people-twin.txt"), "0 1 2\n1 2 1\n0 2 5\n3 0 1\n2 4 7\n5 5 1\n");
        // each command, and which of its output columns hold vertices
        List<Object[]> commands = List.of(
                new Object[] {new String[] {"dijkstra", "--weight-column", "3", "-r", "alice"}, new int[] {0, 2}},
                new Object[] {new String[] {"bfs", "-r", "alice"}, new int[] {0, 2}},
                new Object[] {new String[] {"pagerank", "--algorithm", "pregel", "--iterations", "5"}, new int[] {0}},
                new Object[] {new String[] {"sssp", "--weight-column", "3", "--source", "alice", "--algorithm", "pregel"}, new int[] {0}},
                new Object[] {new String[] {"wcc", "--algorithm", "pregel"}, new int[] {0, 1}},
                new Object[] {new String[] {"wcc"}, new int[] {0, 1}},
                new Object[] {new String[] {"cdlp", "--iterations", "3"}, new int[] {0, 1}},
                new Object[] {new String[] {"scc"}, new int[] {0, 1}});
        int k = 0;
        for (Object[] c : commands) {
            String[] command = (String[]) c[0];
            int[] vertexColumns = (int[]) c[1];
            Path fromNames = dir.resolve("names-" + k + ".tsv");
            Path fromTwin = dir.resolve("ints-" + k++ + ".tsv");
            List<String> a = new ArrayList<>(List.of(command));
            a.addAll(List.of("-g", named.toString(), "-o", fromNames.toString()));
            List<String> b = new ArrayList<>();
            for (String arg : command) {
                b.add(names.contains(arg) ? Integer.toString(names.indexOf(arg)) : arg);
            }
            b.addAll(List.of("-g", twin.toString(), "-o", fromTwin.toString()));
            Run onNames = run(a.toArray(String[]::new));
            Run onTwin = run(b.toArray(String[]::new));
            assertEquals(0, onNames.exit(), String.join(" ", a) + ": " + onNames.err());
            assertEquals(0, onTwin.exit(), String.join(" ", b) + ": " + onTwin.err());
            List<String> translated = new ArrayList<>();
            for (String line : Files.readAllLines(fromTwin)) {
                String[] cells = line.split("\t", -1);
                if (!translated.isEmpty()) { // the header line stays
                    for (int col : vertexColumns) {
                        if (cells[col].matches("\\d+")) {
                            cells[col] = names.get(Integer.parseInt(cells[col]));
                        }
                    }
                }
                translated.add(String.join("\t", cells));
            }
            assertEquals(translated, Files.readAllLines(fromNames), String.join(" ", command));
        }
        Run path = run("dijkstra", "-g", named.toString(), "--weight-column", "3", "-r", "dave", "-t", "erin");
        assertTrue(path.out().contains("distance dave -> erin: 11") && path.out().contains("path: dave -> alice -> bob -> carol -> erin"), path.out());
        Run unknown = run("bfs", "-g", named.toString(), "-r", "zoe");
        assertEquals(CommandLine.ExitCode.USAGE, unknown.exit(), unknown.err());
        assertTrue(unknown.err().contains("--source zoe is not a vertex of graph 'people' (its vertices are named)"), unknown.err());
        Run notANumber = run("bfs", "-g", twin.toString(), "-r", "alice");
        assertTrue(notANumber.err().contains("--source alice is not a vertex id of graph"), notANumber.err());
    }

    /**
     * Every command's --format json against the schema in docs/json.schema.json: one
     * shape for a run whichever way it ran (engine, threads, online API), one for an estimate.
     */
    @Test
    void shouldPrintJsonThatTheDocumentedSchemaAccepts() throws IOException {
        com.networknt.schema.JsonSchema schema = jsonSchema();
        String g = graph().toString();
        List<String[]> commands = List.of(
                new String[] {"pagerank", "-g", g}, new String[] {"pagerank", "-g", g, "--algorithm", "pregel"},
                new String[] {"wcc", "-g", g}, new String[] {"wcc", "-g", g, "--algorithm", "pregel"},
                new String[] {"sssp", "-g", g, "--weight-column", "3", "-r", "1"},
                new String[] {"sssp", "-g", g, "--weight-column", "3", "-r", "1", "--algorithm", "pregel"},
                new String[] {"bfs", "-g", g, "-r", "1"}, new String[] {"bfs", "-g", g, "-r", "1", "--algorithm", "online"},
                new String[] {"dijkstra", "-g", g, "--weight-column", "3", "-r", "1", "-t", "6"},
                new String[] {"cdlp", "-g", g}, new String[] {"lcc", "-g", g}, new String[] {"tc", "-g", g}, new String[] {"scc", "-g", g},
                new String[] {"pagerank", "--algorithm", "pregel", "-g", g, "--estimate"}, new String[] {"stats", "-g", g}, new String[] {"import", "-g", g},
                new String[] {"datasets", "list"}, new String[] {"bench", "--kernels", "pr,bfs", "-g", g, "-r", "1", "-n", "1"});
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        for (String[] command : commands) {
            List<String> args = new ArrayList<>(List.of(command));
            args.addAll(List.of("--format", "json"));
            Run r = run(args.toArray(String[]::new));
            assertEquals(0, r.exit(), String.join(" ", command) + ": " + r.err());
            com.fasterxml.jackson.databind.JsonNode report = mapper.readTree(r.out());
            var problems = schema.validate(report);
            assertTrue(problems.isEmpty(), String.join(" ", command) + ": " + problems + "\n" + r.out());
            if (report.has("seconds")) { // the schema has teeth: what bfs and dijkstra printed before is refused
                com.fasterxml.jackson.databind.node.ObjectNode old = report.deepCopy();
                old.put("seconds", 0.01).remove("peakMemoryBytes");
                assertEquals(2, schema.validate(old).size(), String.join(" ", command) + ": " + schema.validate(old));
            }
        }
    }

    /** docs/json.schema.json, which every command's --format json must satisfy. */
    static com.networknt.schema.JsonSchema jsonSchema() throws IOException {
        return com.networknt.schema.JsonSchemaFactory.getInstance(com.networknt.schema.SpecVersion.VersionFlag.V202012)
                .getSchema(Files.readString(Path.of("..", "docs", "json.schema.json")));
    }

    /** A CSV with a header line, columns picked by name: the answers of its headerless twin; without --header, a clear error. */
    @Test
    void shouldAnswerOnACsvWithAHeaderAsOnItsTwin() throws IOException {
        Path csv = Files.writeString(dir.resolve("hand.csv"), "cost,from,to\n2,1,2\n1,2,3\n5,1,3\n1,4,1\n7,3,6\n");
        Path fromCsv = dir.resolve("csv.tsv");
        Path fromTwin = dir.resolve("twin.tsv");
        Run onCsv = run("dijkstra", "-g", csv.toString(), "--header", "--columns", "from,to,cost", "-r", "1", "-o", fromCsv.toString());
        Run onTwin = run("dijkstra", "-g", graph().toString(), "--weight-column", "3", "-r", "1", "-o", fromTwin.toString());
        assertEquals(0, onCsv.exit(), onCsv.err());
        assertEquals(0, onTwin.exit(), onTwin.err());
        assertEquals(Files.readAllLines(fromTwin), Files.readAllLines(fromCsv));
        Run noHeader = run("pagerank", "-g", csv.toString());
        assertEquals(CarafeCli.EXIT_INPUT, noHeader.exit(), noHeader.err());
        assertTrue(noHeader.err().contains("hand.csv:1: ") && noHeader.err().contains("pass --header"), noHeader.err());
        Run badColumns = run("pagerank", "-g", csv.toString(), "--header", "--columns", "from");
        assertEquals(CommandLine.ExitCode.USAGE, badColumns.exit(), badColumns.err());
        assertTrue(badColumns.err().contains("--columns takes SRC,DST or SRC,DST,WEIGHT"), badColumns.err());
    }

    @Test
    void shouldPrintDistanceAndPathInOriginalIds() throws IOException {
        Run r = runSeeingStderr("dijkstra", "--graph", graph().toString(), "--weight-column", "3", "--source", "1", "--target", "6", "--verify");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("distance 1 -> 6: 10"), r.out());
        assertTrue(r.out().contains("path: 1 -> 2 -> 3 -> 6 (3 edges)"), r.out());
        assertTrue(r.err().contains("verify: OK"), r.err()); // on stderr, as every command tells it
    }

    @Test
    void shouldWriteEveryDistanceAndPredecessorAsTsv() throws IOException {
        Path out = dir.resolve("out/d.tsv");
        Run r = run("dijkstra", "-g", graph().toString(), "--weight-column", "3", "-r", "1", "-o", out.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of("id\tdistance\tpredecessor", "1\t0\t-", "2\t2\t1", "3\t3\t2", "4\tinf\t-", "6\t10\t3"),
                Files.readAllLines(out));
        assertFalse(Files.exists(dir.resolve("out/d.tsv.partial")));
    }

    /** A .csv name means commas, for the online commands too (they wrote tabs whatever the name). */
    @Test
    void shouldWriteCsvWhenTheFileSaysCsv() throws IOException {
        Path csv = dir.resolve("d.csv");
        assertEquals(0, run("dijkstra", "-g", graph().toString(), "--weight-column", "3", "-r", "1", "-o", csv.toString()).exit());
        assertEquals(List.of("id,distance,predecessor", "1,0,-", "2,2,1", "3,3,2", "4,inf,-", "6,10,3"), Files.readAllLines(csv));
        Path bfs = dir.resolve("b.csv");
        assertEquals(0, run("bfs", "-g", graph().toString(), "-r", "1", "-o", bfs.toString()).exit());
        assertEquals("id,depth,parent", Files.readAllLines(bfs).getFirst());
    }

    @Test
    void shouldBenchImportLoadDijkstraAndReload() throws IOException {
        Run r = run("bench", "-g", graph().toString(), "--weight-column", "3", "--sources", "2", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        var j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals(5, j.get("edges").asLong());
        assertTrue(j.at("/import/textBytes").asLong() > 0 && j.at("/import/parseSeconds").asDouble() > 0, r.out());
        long graphBytes = j.at("/cacheLoad/graphBytes").asLong();
        assertEquals(5 * 32 + 5 * 4 + 5 * 4, graphBytes, "records, targets and weights (whole numbers: floats) of 5 vertices and 5 edges");
        assertTrue(j.at("/cacheLoad/GBps").asDouble() > 0 && j.at("/cacheReload/GBps").asDouble() > 0, r.out());
        assertEquals(2, j.get("dijkstra").size());
        Run table = run("bench", "-g", graph().toString(), "--sources", "1");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().contains("cache -> RStore again, after deleting the graph:"), table.out());
    }

    /**
     * A stand-in for a gapbs checkout: the converter keeps the edge list it was given (so
     * the test sees exactly what gapbs would read), each kernel checks that its graph
     * exists, logs its arguments and thread count, and reports a trial time.
     */
    private Path fakeGapbs(String failingKernel) throws IOException {
        Path gapbs = Files.createDirectories(dir.resolve("gapbs"));
        Files.writeString(gapbs.resolve("converter"), """
                #!/bin/sh
                echo "converter $*" >> "$(dirname "$0")/calls"
                while [ $# -gt 0 ]; do case "$1" in -f) in=$2; shift ;; -b) out=$2; shift ;; esac; shift; done
                cp "$in" "$out"
                """);
        for (String kernel : List.of("pr", "bfs", "sssp", "cc", "tc")) {
            Files.writeString(gapbs.resolve(kernel), """
                    #!/bin/sh
                    echo "%s threads=$OMP_NUM_THREADS $*" >> "$(dirname "$0")/calls"
                    [ -f "$2" ] || { echo "Couldn't open file $2"; exit 254; }
                    %s
                    echo "Trial Time:          0.20000"
                    echo "Trial Time:          9.00000"
                    echo "Trial Time:          0.25000"
                    echo "Average Time:        3.15000"
                    """.formatted(kernel, kernel.equals(failingKernel) ? "exit 3" : ""));
        }
        try (var files = Files.list(gapbs)) {
            files.forEach(f -> f.toFile().setExecutable(true));
        }
        return gapbs;
    }

    @Test
    void shouldBenchKernelsBesideGapbsOnTheSameGraph() throws IOException {
        Path gapbs = fakeGapbs(null);
        Path graph = graph();
        Run r = run("bench", "--kernels", "pr,sssp,dijkstra,tc", "-n", "2", "-r", "1", "-g", graph.toString(), "--weight-column", "3",
                "--gapbs", gapbs.toString(), "--format", "json");
        assertEquals(0, r.exit(), r.err());
        var j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals(1, j.get("source").asLong());
        assertEquals(4, j.get("kernels").size());
        for (var row : j.get("kernels")) {
            assertEquals(2, row.get("carafeSeconds").size(), row.toString());
            for (var seconds : row.get("carafeSeconds")) {
                assertTrue(seconds.asDouble() > 0 && seconds.asDouble() < 60, row.toString());
            }
            // each process's median trial: the slow one (9 s) moves nothing
            assertEquals(List.of(0.25, 0.25), List.of(row.get("gapbsSeconds").get(0).asDouble(), row.get("gapbsSeconds").get(1).asDouble()));
            assertEquals(row.get("carafeMedianSeconds").asDouble() / 0.25, row.get("ratio").asDouble(), 1e-12);
        }
        assertTrue(j.at("/kernels/0/carafe").asText().startsWith("pagerank --algorithm pregel --iterations 32 --graph "), j.toString());
        assertTrue(j.at("/kernels/1/carafe").asText().contains("sssp --source 1 --graph "), j.toString());
        // what gapbs read: the graph's edges in original ids, weights in the third column for sssp
        Path converted = gapbs.getParent().resolve("cache/gapbs");
        try (var files = Files.list(converted)) {
            var names = files.map(f -> f.getFileName().toString()).sorted().toList();
            assertEquals(3, names.size(), names.toString());
            for (String name : names) {
                List<String> lines = Files.readAllLines(converted.resolve(name)).stream().sorted().toList();
                List<String> want = name.endsWith(".wsg") ? List.of("1\t2\t2", "1\t3\t5", "2\t3\t1", "3\t6\t7", "4\t1\t1")
                        : List.of("1\t2", "1\t3", "2\t3", "3\t6", "4\t1");
                assertEquals(want, lines, name);
            }
        }
        List<String> calls = Files.readAllLines(gapbs.resolve("calls"));
        assertTrue(calls.stream().anyMatch(c -> c.startsWith("converter -s -f ")), calls.toString()); // tc's graph, symmetrized by gapbs
        assertTrue(calls.stream().anyMatch(c -> c.startsWith("converter -f ") && c.contains(".wel -w -b ")), calls.toString());
        assertEquals(2 * 4 + 3, calls.size(), calls.toString()); // two trials of four kernels, three conversions
        assertTrue(calls.stream().anyMatch(c -> c.matches("sssp threads=2 -f \\S+\\.wsg -n 3 -r 1 -d 2")), calls.toString());
        assertTrue(calls.stream().anyMatch(c -> c.matches("pr threads=2 -f \\S+\\.sg -n 3 -i 32 -t 0")), calls.toString());
        assertTrue(calls.stream().anyMatch(c -> c.matches("tc threads=2 -f \\S+-symmetric\\.sg -n 3")), calls.toString());

        // the converted graphs are kept: a second bench converts nothing (the graph file is unchanged), and the table names both sides
        Run table = run("bench", "--kernels", "pr", "-n", "1", "-g", graph.toString(), "--weight-column", "3", "--gapbs", gapbs.toString());
        assertEquals(0, table.exit(), table.err());
        assertEquals(2 * 4 + 3 + 1, Files.readAllLines(gapbs.resolve("calls")).size(), Files.readAllLines(gapbs.resolve("calls")).toString());
        assertTrue(table.out().contains("pr: carafe pagerank --algorithm pregel --iterations 32"), table.out());
        assertTrue(table.out().lines().anyMatch(l -> l.matches("pr\\s+\\d+\\.\\d{3}\\s+0\\.250\\s+\\d+\\.\\d\\dx .*")), table.out());
    }

    /**
     * --carafe-trials 3: each Carafe command runs its kernel three times in one JVM, and the
     * median of those counts, as gapbs's trials in one process do: for an engine kernel, a
     * thread kernel and a search. The median is of the command's own trials.
     */
    @Test
    void shouldTakeTheMedianOfTheTrialsInOneCarafeProcess() throws IOException {
        Run r = run("bench", "--kernels", "pr,wcc,bfs-online", "-r", "1", "-n", "1", "--carafe-trials", "3", "-g", graph().toString(),
                "--format", "json");
        assertEquals(0, r.exit(), r.err());
        var j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
        assertEquals(3, j.get("carafeTrialsPerProcess").asInt());
        for (var row : j.get("kernels")) {
            assertTrue(row.get("carafe").asText().contains("--trials 3"), row.toString());
            assertEquals(1, row.get("carafeSeconds").size(), row.toString());
            assertTrue(row.get("carafeSeconds").get(0).asDouble() > 0, row.toString());
        }
        Run bad = run("bench", "--kernels", "pr", "--carafe-trials", "0", "-g", graph().toString());
        assertEquals(CommandLine.ExitCode.USAGE, bad.exit(), bad.err());
        assertTrue(bad.err().contains("--carafe-trials must be >= 1, was 0"), bad.err());
    }

    @Test
    void shouldReportAFailedKernelAndRunTheOthers() throws IOException {
        Run r = run("bench", "--kernels", "pr,wcc,bfs,bfs-online", "-r", "1", "-n", "1", "-g", graph().toString(), "--gapbs", fakeGapbs("pr").toString());
        assertEquals(CarafeCli.EXIT_RSTORE, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("pr") && l.contains("FAILED: gapbs pr exited with code 3")), r.out());
        for (String kernel : List.of("wcc", "bfs", "bfs-online")) {
            assertTrue(r.out().lines().anyMatch(l -> l.matches(kernel + "\\s+\\d+\\.\\d{3}\\s+0\\.250 .*")), r.out());
        }
        // the direction-optimizing search takes the threads; the online one has one
        assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith("bfs: carafe bfs --source 1 --graph ") && l.contains("--workers 2")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.trim().startsWith("bfs-online: carafe bfs --source 1 --algorithm online --graph ")
                && !l.contains("--workers")), r.out());
    }

    @Test
    void shouldRefuseUnknownKernelsAndMissingGapbsBeforeRunningAnything() throws IOException {
        Run unknown = run("bench", "--kernels", "pr,sp", "-g", graph().toString());
        assertEquals(2, unknown.exit());
        assertTrue(unknown.err().contains("no kernel 'sp'; choose from pr,pr-pull,bfs,bfs-online,bfs-pregel,sssp,sssp-pregel,dijkstra,wcc,wcc-pregel,wcc-lp,cdlp,lcc,tc"), unknown.err());
        Run missing = run("bench", "--kernels", "pr", "-g", graph().toString(), "--gapbs", dir.resolve("nowhere").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("has no executable 'converter': build gapbs there first"), missing.err());
    }

    /** Both searches, the direction-optimizing one (default) and the online one, on a graph where every parent is forced. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"direction-optimizing", "online"})
    void shouldPrintBfsLevelsAndWriteDepths(String algorithm) throws IOException {
        Path out = dir.resolve("b.tsv");
        Run r = run("bfs", "-g", graph().toString(), "-r", "1", "-t", "6", "-o", out.toString(), "--verify", "--algorithm", algorithm);
        assertEquals(0, r.exit(), r.err());
        // levels 0, 1 and 2: as many as the lines that list them
        assertTrue(r.out().contains("reached 4 of 5 vertices from 1 in 3 levels (depths 0-2)"), r.out());
        assertEquals(3, r.out().lines().filter(l -> l.startsWith("  level ")).count(), r.out());
        assertTrue(r.out().contains("path: 1 -> 3 -> 6"), r.out());
        assertEquals(List.of("id\tdepth\tparent", "1\t0\t-", "2\t1\t1", "3\t1\t1", "4\tinf\t-", "6\t2\t3"), Files.readAllLines(out));
        Run json = run("bfs", "-g", graph().toString(), "-r", "1", "--algorithm", algorithm, "--format", "json");
        com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
        assertEquals(algorithm, report.get("method").asText());
        if (algorithm.equals("online")) {
            Run threads = run("bfs", "-g", graph().toString(), "-r", "1", "--algorithm", algorithm, "-w", "3");
            assertEquals(CommandLine.ExitCode.USAGE, threads.exit());
            assertTrue(threads.err().contains("--workers sets the threads of the direction-optimizing search; the online one runs on one"), threads.err());
        } else {
            assertEquals(2, report.get("threads").asInt());
            assertTrue(report.get("directions").asText().matches("[TB]+"), report.toString());
            assertTrue(report.get("seconds").get("setup").asDouble() > 0, report.toString());
        }
        Run unknown = run("bfs", "-g", graph().toString(), "-r", "1", "--algorithm", "sideways");
        assertEquals(CommandLine.ExitCode.USAGE, unknown.exit());
        assertTrue(unknown.err().contains("--algorithm must be direction-optimizing or online, was sideways"), unknown.err());
    }

    @Test
    void shouldReportImportCountsAndHeaderComparison() throws IOException {
        Path file = graph();
        Run r = run("import", "-g", file.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("5 edge lines"), r.out());
        assertTrue(r.out().contains("header says 5 nodes and 5 edges: matches"), r.out());
        Run again = run("import", "-g", file.toString());
        assertTrue(again.out().contains("loaded from cache"), again.out());
    }

    @Test
    void shouldExitWithDistinctCodesAndClearMessages() throws IOException {
        Path bad = dir.resolve("bad.txt");
        Files.writeString(bad, "1 2\n2 three\n");
        Run malformed = run("import", "-g", bad.toString());
        assertEquals(CarafeCli.EXIT_INPUT, malformed.exit());
        assertTrue(malformed.err().contains("bad.txt:2: 'three' is not a vertex id"), malformed.err());

        Run missingVertex = run("dijkstra", "-g", graph().toString(), "-r", "99");
        assertEquals(CommandLine.ExitCode.USAGE, missingVertex.exit());
        assertTrue(missingVertex.err().contains("--source 99 is not a vertex"), missingVertex.err());

        Run unknown = run("bfs", "-g", "no-such-graph-or-file", "-r", "1");
        assertEquals(CarafeCli.EXIT_INPUT, unknown.exit(), "a missing graph is missing input, as documented");
        assertTrue(unknown.err().contains("neither a file nor a dataset name"), unknown.err());

        Path negative = dir.resolve("neg.e");
        Files.writeString(negative, "1 2 -3\n");
        Run neg = run("dijkstra", "-g", negative.toString(), "--weight-column", "3", "-r", "1");
        assertEquals(CommandLine.ExitCode.USAGE, neg.exit());
        assertTrue(neg.err().contains("negative weights"), neg.err());
        Run mapped = run("dijkstra", "-g", negative.toString(), "--weight-column", "3", "--weight-map", "abs", "-r", "1", "-t", "2");
        assertEquals(0, mapped.exit(), mapped.err());
        assertTrue(mapped.out().contains("distance 1 -> 2: 3"), mapped.out());
    }

    @Test
    void shouldShowStatsOfAGraph() throws IOException {
        Run r = run("stats", "-g", graph().toString(), "-s");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("undirected"), r.out());
        assertTrue(r.out().contains("vertices   5"), r.out());
        assertTrue(r.out().contains("edges      10"), r.out());
        assertTrue(r.out().contains("carafe/hand/edges"), r.out());
    }

    @Test
    void shouldListTheCatalog() {
        Run r = run("datasets", "list");
        assertEquals(0, r.exit(), r.err());
        for (String name : List.of("livejournal", "com-livejournal", "com-orkut", "soc-pokec", "web-google", "roadnet-ca",
                "wiki-vote", "soc-slashdot0902", "email-enron", "email-eu-core", "livejournal-synthetic", "grid-1400")) {
            assertTrue(r.out().contains(name + " "), "catalog lists " + name);
        }
    }

    @Test
    void shouldGenerateTheSameGraphFromTheSameSeed() throws IOException {
        Path a = dir.resolve("a.txt");
        Path b = dir.resolve("b.txt");
        String cache = dir.resolve("gen").toString();
        assertEquals(0, run("datasets", "generate", "--kind", "rmat", "-n", "1000", "-m", "8000", "--seed", "7", "--text", a.toString(), "--cache-dir", cache).exit());
        assertEquals(0, run("datasets", "generate", "--kind", "rmat", "-n", "1000", "-m", "8000", "--seed", "7", "--text", b.toString(), "--cache-dir", cache + "2").exit());
        assertEquals(Files.readAllLines(a).stream().filter(l -> !l.startsWith("#")).toList(),
                Files.readAllLines(b).stream().filter(l -> !l.startsWith("#")).toList());
        assertEquals(Files.readAllLines(dir.resolve("a.v")), Files.readAllLines(dir.resolve("b.v")));
        // R-MAT leaves vertices without edges: they go to a.v, and the import with it gives back every vertex
        Path vertexFile = dir.resolve("a.v");
        assertTrue(Files.exists(vertexFile), "the isolated vertices' file");
        Run imported = run("import", "-g", a.toString(), "--vertices", vertexFile.toString());
        assertTrue(imported.out().contains("1,000 vertices") && imported.out().contains(": matches"), imported.out());
    }

    /** A generated graph given a name is found by --graph NAME; a catalog name or a name taken by another graph is refused. */
    @Test
    void shouldUseAGeneratedGraphByItsName() throws IOException {
        String cache = dir.resolve("cache").toString(); // where run() points the other commands
        Run named = run("datasets", "generate", "--kind", "rmat", "-n", "2000", "-m", "16000", "--seed", "3", "my-rmat", "--cache-dir", cache);
        assertEquals(0, named.exit(), named.err());
        assertTrue(named.out().contains("named my-rmat: use it as --graph my-rmat"), named.out());
        Run pagerank = run("pagerank", "-g", "my-rmat", "--iterations", "3", "--verify");
        assertEquals(0, pagerank.exit(), pagerank.err());
        assertTrue(pagerank.out().contains("pagerank my-rmat: 2,000 vertices"), pagerank.out());
        Run again = run("datasets", "generate", "--kind", "rmat", "-n", "2000", "-m", "16000", "--seed", "3", "my-rmat", "--cache-dir", cache);
        assertEquals(0, again.exit(), "the same graph under the same name: " + again.err());
        Run taken = run("datasets", "generate", "--kind", "uniform", "-n", "100", "-m", "400", "my-rmat", "--cache-dir", cache);
        assertEquals(CommandLine.ExitCode.USAGE, taken.exit(), taken.err());
        assertTrue(taken.err().contains("'my-rmat' names another generated graph already (rmat, 2000 vertices, 16000 edges, seed 3)"), taken.err());
        Run catalog = run("datasets", "generate", "--kind", "uniform", "-n", "100", "-m", "400", "wiki-vote", "--cache-dir", cache);
        assertEquals(CommandLine.ExitCode.USAGE, catalog.exit(), catalog.err());
        assertTrue(catalog.err().contains("'wiki-vote' is a dataset of the catalog"), catalog.err());
        Run unknown = run("datasets", "generate", "nothing-here", "--cache-dir", cache);
        assertEquals(CommandLine.ExitCode.USAGE, unknown.exit(), unknown.err());
        assertTrue(unknown.err().contains("to name a graph you generate, give --kind"), unknown.err());
    }

    /** A grid's edge list against its definition: r·s + c joined to its row and column neighbours, both ways, and nothing else. */
    @Test
    void shouldGenerateAGridRowByRow() throws IOException {
        Path text = dir.resolve("grid.txt");
        String cache = dir.resolve("gen").toString();
        Run r = run("datasets", "generate", "--kind", "grid", "-n", "25", "--text", text.toString(), "--cache-dir", cache);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("grid graph: 25 vertices, 80 edges"), r.out());
        java.util.Set<String> want = new java.util.TreeSet<>();
        for (int v = 0; v < 25; v++) {
            for (int u : new int[] {v - 5, v + 5, v % 5 > 0 ? v - 1 : -1, v % 5 < 4 ? v + 1 : -1}) {
                if (u >= 0 && u < 25) {
                    want.add(v + "\t" + u);
                }
            }
        }
        java.util.Set<String> got = new java.util.TreeSet<>(Files.readAllLines(text).stream().filter(l -> !l.startsWith("#")).toList());
        assertEquals(want, got);
        assertEquals(80, want.size());
        Run notSquare = run("datasets", "generate", "--kind", "grid", "-n", "1000", "--cache-dir", cache);
        assertEquals(CommandLine.ExitCode.USAGE, notSquare.exit(), notSquare.err());
        assertTrue(notSquare.err().contains("a grid has a square number of vertices, not 1000: try 961 or 1024"), notSquare.err());
        Run wrongEdges = run("datasets", "generate", "--kind", "grid", "-n", "25", "-m", "40", "--cache-dir", cache);
        assertEquals(CommandLine.ExitCode.USAGE, wrongEdges.exit(), wrongEdges.err());
        assertTrue(wrongEdges.err().contains("a grid of 25 vertices has 80 edges (each neighbouring pair both ways), not 40"), wrongEdges.err());
    }

    /**
     * --format json on every command: the run's command, version, time and every parameter
     * (defaults included), then its results; edges are the stored edges everywhere.
     */
    @Test
    void shouldReportEveryCommandAsJsonWithItsParameters() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        String g = graph().toString();
        String[][] commands = {
                {"dijkstra", "-g", g, "--weight-column", "3", "-r", "1", "-t", "6", "--verify", "--format", "json"},
                {"bfs", "-g", g, "-r", "1", "--format", "json"},
                {"stats", "-g", g, "--format", "json"},
                {"import", "-g", g, "--format", "json"},
                {"pagerank", "-g", g, "--tolerance", "1e-9", "--format", "json"},
                {"datasets", "list", "--format", "json"}};
        java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> reports = new java.util.HashMap<>();
        for (String[] command : commands) {
            Run r = run(command);
            assertEquals(0, r.exit(), String.join(" ", command) + ": " + r.err());
            com.fasterxml.jackson.databind.JsonNode report = json.readTree(r.out());
            String name = command[0].equals("datasets") ? "carafe datasets list" : "carafe " + command[0];
            assertEquals(name, report.get("command").asText());
            assertEquals("carafe 0.1.0", report.get("version").asText());
            java.time.Instant.parse(report.get("timestamp").asText());
            assertTrue(report.get("parameters").isObject(), report.toString());
            reports.put(command[0], report);
        }
        // the hand graph: 1 -> 2 (2), 2 -> 3 (1), 1 -> 3 (5), 4 -> 1 (1), 3 -> 6 (7)
        com.fasterxml.jackson.databind.JsonNode dijkstra = reports.get("dijkstra");
        assertEquals(10.0, dijkstra.get("distance").asDouble());
        assertEquals("[1,2,3,6]", dijkstra.get("path").toString());
        assertTrue(dijkstra.get("verified").asBoolean());
        assertEquals(g, dijkstra.get("parameters").get("graph").asText());
        assertEquals(3, dijkstra.get("parameters").get("weight-column").asInt());
        assertEquals("collapse", dijkstra.get("parameters").get("duplicates").asText(), "defaults are recorded too");
        assertEquals("[1,2,1]", reports.get("bfs").get("verticesPerLevel").toString()); // {1}, {2, 3}, {6}
        assertEquals(5, reports.get("stats").get("edges").asLong());
        assertTrue(reports.get("import").get("fromCache").asBoolean(), "the earlier commands imported it");
        assertEquals(1e-9, reports.get("pagerank").get("parameters").get("tolerance").asDouble());
        assertEquals(100, reports.get("pagerank").get("parameters").get("max-iterations").asInt());
        for (String edgesAgree : new String[] {"dijkstra", "bfs", "stats", "import", "pagerank"}) {
            assertEquals(5, reports.get(edgesAgree).get("edges").asLong(), edgesAgree + ": edges are the stored edges");
        }
        assertTrue(reports.get("datasets").get("datasets").size() > 5);
    }

    /**
     * wcc counts the components and the largest alike on the engine and in the process,
     * whether the labels (each component's smallest original id) lie below the vertex count
     * or past it: {0,1,2} {3,4} {5} {6} in a file numbered 0..6, and the same shape with
     * ids of ten digits where two of the components' labels are small.
     */
    @Test
    void shouldCountComponentsWhateverTheIds() throws IOException {
        Path dense = Files.writeString(dir.resolve("dense.e"), "0 1\n1 2\n3 4\n5 5\n6 6\n");
        Path sparse = Files.writeString(dir.resolve("sparse.e"), "9000000001 9000000000\n9000000002 9000000001\n7 8\n5 5\n6 6\n");
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        for (Path g : List.of(dense, sparse)) {
            for (String method : List.of("pregel", "pregel-lp", "afforest")) {
                Run r = run("wcc", "-g", g.toString(), "--algorithm", method, "--format", "json");
                assertEquals(0, r.exit(), r.err());
                com.fasterxml.jackson.databind.JsonNode report = mapper.readTree(r.out());
                assertEquals(4, report.get("components").asLong(), g + " " + method + ": " + r.out());
                assertEquals(3, report.get("largestComponent").asLong(), g + " " + method + ": " + r.out());
            }
            Run table = run("wcc", "-g", g.toString(), "--algorithm", "pregel");
            assertTrue(table.out().contains("4 components; the largest has 3 of 7 vertices (label " + (g == dense ? "0" : "9000000000") + ")"),
                    table.out());
        }
    }

    /** -n runs the kernel N times on the loaded graph and reports each trial and min/avg/max, in the table and the JSON. */
    @Test
    void shouldRunTrialsLikeGapbs() throws Exception {
        Run table = run("wcc", "-g", graph().toString(), "-n", "3");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().matches("(?s).*\\n3 trials, compute [0-9.]+ [0-9.]+ [0-9.]+ s; min [0-9.]+ s, avg [0-9.]+ s, max [0-9.]+ s\\n"), table.out());
        Run json = run("pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--trials", "2", "--format", "json");
        assertEquals(0, json.exit(), json.err());
        com.fasterxml.jackson.databind.JsonNode summary = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
        assertEquals(2, summary.get("trials").size());
        com.fasterxml.jackson.databind.JsonNode seconds = summary.get("trialComputeSeconds");
        assertTrue(seconds.get("min").asDouble() <= seconds.get("avg").asDouble() && seconds.get("avg").asDouble() <= seconds.get("max").asDouble(),
                seconds.toString());
        assertEquals(seconds.get("max").asDouble(), Math.max(summary.get("trials").get(0).get("computeSeconds").asDouble(),
                summary.get("trials").get(1).get("computeSeconds").asDouble()));
        Run bfs = run("bfs", "-g", graph().toString(), "-r", "1", "-n", "2");
        assertEquals(0, bfs.exit(), bfs.err());
        assertTrue(bfs.out().matches("(?s).*\\n2 trials, search [0-9.]+ [0-9.]+ s; min .*"), bfs.out());
        Run dijkstra = run("dijkstra", "-g", graph().toString(), "--weight-column", "3", "-r", "1", "-n", "3", "--format", "json");
        assertEquals(3, new com.fasterxml.jackson.databind.ObjectMapper().readTree(dijkstra.out()).get("trials").size(), dijkstra.out());
        Run none = run("wcc", "-g", graph().toString(), "-n", "0");
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("--trials must be >= 1"), none.err());
    }

    /**
     * A graph loaded into a running cluster stays there: the next command on the same graph
     * uses it, a different graph of that name is refused until --replace, and graphs
     * list|drop show and remove it (wiki-Vote from the shared datasets).
     */
    @Test
    void shouldReuseReplaceListAndDropGraphsInARunningCluster() throws Exception {
        Path shared = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(shared != null && Files.exists(shared.resolve("snap/wiki-Vote.txt")),
                "no shared/datasets beside the checkout: this test needs wiki-Vote");
        String wiki = shared.resolve("snap/wiki-Vote.txt").toString();
        io.rstore.RStoreSettings settings = io.rstore.RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withServerCapacityBytes(256 << 20);
        try (io.rstore.net.NetworkCluster cluster = io.rstore.net.NetworkCluster.start(settings, new java.net.InetSocketAddress("127.0.0.1", 0))) {
            String uri = "rstore+tcp://127.0.0.1:" + cluster.port();
            Run first = runSeeingStderr("wcc", "-g", wiki, "--cluster", uri);
            assertEquals(0, first.exit(), first.err());
            assertTrue(first.err().contains("loaded wiki-Vote into RStore"), first.err());
            Run again = runSeeingStderr("wcc", "-g", wiki, "--cluster", uri);
            assertEquals(0, again.exit(), again.err());
            assertTrue(again.err().contains("using wiki-Vote already in RStore"), again.err());
            // SNAP's statistics for wiki-Vote: the largest weakly connected component has 7,066 nodes
            assertTrue(again.out().contains("the largest has 7,066 of 7,115 vertices"), again.out());
            assertEquals(first.out().substring(0, first.out().indexOf(", compute")), again.out().substring(0, again.out().indexOf(", compute")),
                    "the same answer from the graph left in the cluster");

            Run other = runSeeingStderr("wcc", "-g", wiki, "--duplicates", "keep", "--cluster", uri); // other import options
            assertEquals(CarafeCli.EXIT_INPUT, other.exit(), other.err());
            assertTrue(other.err().contains("different graph named 'wiki-Vote'") && other.err().contains("--replace")
                    && other.err().contains("carafe graphs drop wiki-Vote"), other.err());
            Run replaced = runSeeingStderr("wcc", "-g", wiki, "--duplicates", "keep", "--replace", "--cluster", uri);
            assertEquals(0, replaced.exit(), replaced.err());
            assertTrue(replaced.err().contains("replacing graph wiki-Vote"), replaced.err());

            Run help = run("graphs", "list", "--help"); // without --cluster, the master rstore status finds: conf/rstore.conf's
            assertTrue(help.out().replaceAll("\\s+", " ").contains("Default: the master and transport of conf/rstore."), help.out());
            Run list = run("graphs", "list", "-c", uri);
            assertEquals(0, list.exit(), list.err());
            assertTrue(list.out().matches("(?s).*wiki-Vote\\s+complete\\s+7,115\\s+\\d{3},\\d{3}\\s+undirected.*1 graph in .*"), list.out());
            Run json = run("graphs", "list", "--cluster", uri, "--format", "json");
            com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
            assertTrue(jsonSchema().validate(report).isEmpty(), jsonSchema().validate(report) + "\n" + json.out());
            assertEquals("carafe graphs list", report.get("command").asText());
            com.fasterxml.jackson.databind.JsonNode graphs = report.get("graphs");
            assertEquals(1, graphs.size());
            assertEquals("wiki-Vote", graphs.get(0).get("name").asText());
            assertEquals(7_115, graphs.get(0).get("vertices").asLong());
            assertFalse(graphs.get(0).get("directed").asBoolean());

            // as if loaded by an older Carafe (format 1, no in-edges): listed as such, refused naming the ways out, replaced on request
            try (io.rstore.RStore client = io.rstore.RStore.connect(uri, settings);
                 io.rstore.Mapping m = client.joinNamespace(io.carafe.graph.CarafeGraph.namespace("wiki-Vote", "meta"))
                         .raddress(io.rstore.RStore.RSTORE_INIT_RADDRESS).map(io.rstore.MapFlags.PREFETCH)) {
                m.segment().set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 8, 1); // the header's format version
                m.write();
            }
            Run oldList = run("graphs", "list", "--cluster", uri);
            assertTrue(oldList.out().matches("(?s).*wiki-Vote\\s+format-1\\s.*"), oldList.out());
            Run old = runSeeingStderr("wcc", "-g", wiki, "--duplicates", "keep", "--cluster", uri);
            assertEquals(CarafeCli.EXIT_INPUT, old.exit(), old.err());
            assertTrue(old.err().contains("format 1") && old.err().contains("--replace") && old.err().contains("carafe graphs drop wiki-Vote"), old.err());
            Run reloaded = runSeeingStderr("wcc", "-g", wiki, "--duplicates", "keep", "--replace", "--cluster", uri);
            assertEquals(0, reloaded.exit(), reloaded.err());
            assertTrue(reloaded.out().contains("the largest has 7,066 of 7,115 vertices"), reloaded.out());

            assertEquals(0, run("graphs", "drop", "wiki-Vote", "--cluster", uri).exit());
            assertTrue(run("graphs", "list", "--cluster", uri).out().contains("0 graphs in"));
            Run gone = run("graphs", "drop", "wiki-Vote", "--cluster", uri);
            assertEquals(CarafeCli.EXIT_INPUT, gone.exit());
            assertTrue(gone.err().contains("no graph named 'wiki-Vote'"), gone.err());
        }
    }

    /** As {@link #run}, with what the command printed to System.err (its progress lines) in {@code err} too. */
    private Run runSeeingStderr(String... args) {
        java.io.PrintStream before = System.err;
        java.io.ByteArrayOutputStream progress = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(progress, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            Run r = run(args);
            return new Run(r.exit(), r.out(), r.err() + progress.toString(java.nio.charset.StandardCharsets.UTF_8));
        } finally {
            System.setErr(before);
        }
    }
}

package io.carafe.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class PregelCommandsTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private Run run(String... args) {
        return run(false, args);
    }

    /**
     * With {@code captureStderr} the process's stderr (progress, verify lines) is captured
     * too. Only where needed: while System.err is swapped, picocli's own error output
     * does not reach the writer set with setErr.
     */
    private Run run(boolean captureStderr, String... args) {
        CommandLine cli = CarafeCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        String[] all = java.util.Arrays.copyOf(args, args.length + 2);
        all[args.length] = "--cache-dir";
        all[args.length + 1] = dir.resolve("cache").toString();
        // progress and verify lines go to the process's stderr: capture it too
        java.io.PrintStream original = System.err;
        java.io.ByteArrayOutputStream progress = new java.io.ByteArrayOutputStream();
        if (captureStderr) {
            System.setErr(new java.io.PrintStream(progress, true));
        }
        int exit;
        try {
            exit = cli.execute(all);
        } finally {
            System.setErr(original);
        }
        return new Run(exit, out.toString(), err + progress.toString());
    }

    /** A 4-cycle 1->2->3->4->1 plus 1->3: PageRank is symmetric enough to check by hand. */
    private Path graph() throws IOException {
        Path file = dir.resolve("g.txt");
        if (!Files.exists(file)) {
            Files.writeString(file, "1 2\n2 3\n3 4\n4 1\n1 3\n");
        }
        return file;
    }

    @Test
    void shouldStopAJobAtItsMemoryBoundWithAnExitCodeOfItsOwn() {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.carafe.datasets.Datasets.sharedDir().isPresent(), "no shared/datasets beside the checkout");
        for (boolean processes : new boolean[] {false, true}) {
            Run stopped = processes ? run("pagerank", "--algorithm", "pregel", "--graph", "wiki-vote", "--max-memory", "1MiB", "--worker-processes")
                    : run("pagerank", "--algorithm", "pregel", "--graph", "wiki-vote", "--max-memory", "1MiB");
            assertEquals(CarafeCli.EXIT_MEMORY, stopped.exit(), stopped.err());
            assertTrue(stopped.err().contains("carafe: setup reached ") && stopped.err().contains("past the job's bound of 1.0 MB (--max-memory;"),
                    stopped.err()); // the library names PregelJob.Options.maxMemoryBytes, the CLI its flag
            assertEquals(1, stopped.err().strip().lines().count(), "one line, no stack trace: " + stopped.err());
        }
        Run unbounded = run("pagerank", "--algorithm", "pregel", "--graph", "wiki-vote", "--max-memory", "none", "--iterations", "3");
        assertEquals(0, unbounded.exit(), unbounded.err());
        Run available = run("pagerank", "--algorithm", "pregel", "--graph", "wiki-vote", "--iterations", "3"); // the default: what the machine has
        assertEquals(0, available.exit(), available.err());
        Run bad = run("pagerank", "--algorithm", "pregel", "--graph", "wiki-vote", "--max-memory", "lots");
        assertEquals(CommandLine.ExitCode.USAGE, bad.exit());
        assertTrue(bad.err().contains("--max-memory must be a size such as 8GiB, available or none, was lots"), bad.err());
    }

    /**
     * A worker process stopped with SIGSTOP mid-job: its heartbeat stands still, and the job
     * fails within seconds (not the 600 s superstep timeout) with an error that names that
     * worker and its pid, not a healthy one; the stopped process is killed, not left behind.
     */
    /**
     * Whether process {@code pid} is worker process {@code index} of a job: its command line
     * as /proc has it. ProcessHandle.Info's arguments are optional, and on this machine they
     * came back empty (for the workers, and for a plain 'sleep 5 x'), so the tests that
     * looked workers up that way stopped finding them.
     */
    private static boolean isWorker(long pid, String index) {
        try {
            List<String> args = List.of(new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                    java.nio.charset.StandardCharsets.UTF_8).split("\0"));
            int at = args.indexOf("--index");
            return args.contains("worker") && at >= 0 && at + 1 < args.size() && args.get(at + 1).equals(index);
        } catch (IOException e) {
            return false; // gone, or not a process of ours
        }
    }

    @Test
    void shouldNameAStoppedWorkerProcessWithinSeconds() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.carafe.datasets.Datasets.sharedDir().isPresent(), "no shared/datasets beside the checkout");
        long[] stopped = {-1};
        Thread stopper = Thread.ofPlatform().daemon().start(() -> {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (stopped[0] < 0 && System.nanoTime() < deadline) {
                ProcessHandle.current().descendants().filter(h -> isWorker(h.pid(), "1")).findFirst().ifPresent(h -> stopped[0] = h.pid());
                try {
                    Thread.sleep(stopped[0] < 0 ? 100 : 3_000); // found: let it run a few supersteps, then stop it
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (stopped[0] <= 0) { // never 'kill -STOP -1' (every process one may signal); end the job, and the assertion says why
                ProcessHandle.current().descendants().filter(h -> isWorker(h.pid(), "0") || isWorker(h.pid(), "1")).forEach(ProcessHandle::destroy);
                return;
            }
            try {
                new ProcessBuilder("kill", "-STOP", Long.toString(stopped[0])).start().waitFor();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long start = System.nanoTime();
        Run r;
        try {
            r = run("pagerank", "--algorithm", "pregel", "--graph", "wiki-vote", "--iterations", "1000000", "--worker-processes");
        } finally {
            stopper.join();
            if (stopped[0] > 0) {
                ProcessHandle.of(stopped[0]).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(stopped[0] > 0, "a worker process 1 to stop was found");
        assertEquals(CarafeCli.EXIT_RSTORE, r.exit(), r.err());
        assertTrue(r.err().contains("carafe: worker process 1 (pid " + stopped[0] + ") sent no heartbeat for "), r.err());
        assertTrue(seconds < 60, "failed in " + seconds + " s");
        Thread.sleep(500);
        assertFalse(ProcessHandle.of(stopped[0]).map(ProcessHandle::isAlive).orElse(false), "the stopped worker was killed");
    }

    @Test
    void shouldWriteTheJsonSummaryTheIssueAsksFor() throws IOException {
        Run r = run("pagerank", "--algorithm", "pregel", "--graph", graph().toString(), "--iterations", "5", "--workers", "2", "--format", "json", "--top", "2");
        assertEquals(0, r.exit(), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        for (String field : List.of("algorithm", "graph", "vertices", "edges", "workers", "iterations", "converged", "residual", "seconds", "supersteps", "top")) {
            assertTrue(j.has(field), "summary has " + field + ": " + r.out());
        }
        assertEquals("pagerank", j.get("algorithm").asText());
        assertEquals(4, j.get("vertices").asInt());
        assertEquals(5, j.get("edges").asInt());
        assertEquals(2, j.get("workers").asInt());
        assertEquals("gather", j.get("messaging").asText(), "PageRank gathers unless told otherwise");
        assertEquals(5, j.get("iterations").asInt());
        assertFalse(j.get("converged").asBoolean(), "fixed iterations do not claim convergence");
        for (String s : List.of("load", "compute", "total")) {
            assertTrue(j.at("/seconds/" + s).isNumber(), s);
        }
        assertEquals(6, j.get("supersteps").size(), "superstep 0 plus 5 updates");
        assertTrue(j.at("/supersteps/0/seconds").isNumber() && j.at("/supersteps/0/messages").asLong() == 5);
        assertEquals(2, j.get("top").size());
        assertEquals(3, j.at("/top/0/id").asLong(), "vertex 3 has two in-edges");
        assertTrue(j.at("/top/0/score").asDouble() > j.at("/top/1/score").asDouble());
    }

    @Test
    void shouldPrintTopTableAndWriteEveryRank() throws IOException {
        Path out = dir.resolve("ranks.csv");
        Run r = run(true, "pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--tolerance", "1e-10", "-o", out.toString(), "--verify", "-w", "3");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("converged"), r.out());
        assertTrue(r.err().contains("verify: OK"), r.err());
        assertTrue(r.err().contains("superstep   0:"), "progress per superstep on stderr");
        List<String> lines = Files.readAllLines(out);
        assertEquals("id,pagerank", lines.getFirst());
        assertEquals(5, lines.size());
        double sum = lines.stream().skip(1).mapToDouble(l -> Double.parseDouble(l.split(",")[1])).sum();
        assertEquals(1.0, sum, 1e-9);
    }

    @Test
    void shouldRunSsspAndWccInTheSameShape() throws IOException {
        Path out = dir.resolve("d.tsv");
        for (String algorithm : List.of("delta-stepping", "pregel")) {
            Run sssp = run(true, "sssp", "-g", graph().toString(), "-r", "2", "-o", out.toString(), "--verify", "--algorithm", algorithm);
            assertEquals(0, sssp.exit(), sssp.err());
            assertTrue(sssp.err().contains("verify: OK"), sssp.err());
            assertEquals(List.of("id\tdistance", "1\t3", "2\t0", "3\t1", "4\t2"), Files.readAllLines(out), "2->3->4->1 by " + algorithm);
        }
        Run buckets = run(true, "sssp", "-g", graph().toString(), "-r", "2", "-o", out.toString(), "--verify", "--algorithm", "pregel",
                "--delta", "1", "--format", "json");
        assertEquals(0, buckets.exit(), buckets.err());
        assertTrue(buckets.err().contains("verify: OK"), buckets.err());
        assertEquals(1.0, new ObjectMapper().readTree(buckets.out()).get("delta").asDouble());
        assertEquals(List.of("id\tdistance", "1\t3", "2\t0", "3\t1", "4\t2"), Files.readAllLines(out), "2->3->4->1 in buckets 1 wide");
        Run hopsDelta = run("sssp", "-g", graph().toString(), "-r", "2", "--algorithm", "pregel", "--hops", "--delta", "2");
        assertEquals(CommandLine.ExitCode.USAGE, hopsDelta.exit());
        assertTrue(hopsDelta.err().contains("--hops on the pregel algorithm runs BFS, which has none"), hopsDelta.err());
        Run engineOnly = run("sssp", "-g", graph().toString(), "-r", "2", "--max-supersteps", "5");
        assertEquals(CommandLine.ExitCode.USAGE, engineOnly.exit());
        assertTrue(engineOnly.err().contains("--max-supersteps is an option of the Pregel engine, and delta-stepping runs in this process:"
                + " add --algorithm pregel to run sssp on partition workers"), engineOnly.err());
        Run json = run("sssp", "-g", graph().toString(), "-r", "2", "--format", "json", "--delta", "0.5");
        JsonNode report = new ObjectMapper().readTree(json.out());
        assertEquals("delta-stepping", report.get("method").asText());
        assertEquals(0.5, report.get("delta").asDouble());
        assertEquals(4, report.get("reached").asInt());
        Run wcc = run("wcc", "-g", graph().toString(), "--format", "json");
        assertEquals(0, wcc.exit(), wcc.err());
        JsonNode j = new ObjectMapper().readTree(wcc.out());
        assertEquals(1, j.get("components").asInt());
        assertEquals(4, j.get("largestComponent").asInt());
    }

    /** PageRank pulled on threads of this process: verified, the engine's ranks to 1e-12, its own JSON, and the engine's options refused. */
    @Test
    void shouldPullPageRankInThisProcess() throws IOException {
        Path shared = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(shared != null, "no shared/datasets beside the checkout");
        String wiki = shared.resolve("snap/wiki-Vote.txt").toString();
        Path pulled = dir.resolve("pulled.csv");
        Path engine = dir.resolve("engine.csv");
        Run p = run(true, "pagerank", "-g", wiki, "--algorithm", "pull", "-w", "3", "--iterations", "30", "-o", pulled.toString(), "--verify",
                "--format", "json");
        assertEquals(0, p.exit(), p.err());
        assertTrue(p.err().contains("verify: OK"), p.err());
        JsonNode j = new ObjectMapper().readTree(p.out());
        assertEquals("pull", j.get("method").asText());
        assertEquals(3, j.get("threads").asInt());
        assertEquals(30, j.get("iterations").asInt());
        assertEquals(10, j.get("top").size());
        Run e = run(true, "pagerank", "--algorithm", "pregel", "-g", wiki, "--iterations", "30", "-o", engine.toString());
        assertEquals(0, e.exit(), e.err());
        List<String> a = Files.readAllLines(pulled);
        List<String> b = Files.readAllLines(engine);
        assertEquals(7116, a.size());
        assertEquals(b.getFirst(), a.getFirst());
        for (int i = 1; i < a.size(); i++) {
            String[] x = a.get(i).split(",");
            String[] y = b.get(i).split(",");
            assertEquals(y[0], x[0]);
            assertEquals(Double.parseDouble(y[1]), Double.parseDouble(x[1]), 1e-12, "rank of " + x[0]);
        }
        Run refused = run("pagerank", "-g", wiki, "--algorithm", "pull", "--worker-processes");
        assertEquals(CommandLine.ExitCode.USAGE, refused.exit());
        assertTrue(refused.err().contains("--worker-processes is an option of the Pregel engine, and pull runs in this process: add --algorithm"
                + " pregel to run pagerank on partition workers"), refused.err());
        Run damping = run("pagerank", "-g", "/nonexistent/graph.txt", "--algorithm", "pull", "--damping", "1.5");
        assertEquals(CommandLine.ExitCode.USAGE, damping.exit(), "refused before the graph is looked at: " + damping.err());
        assertTrue(damping.err().contains("--damping must be in [0, 1], was 1.5"), damping.err());
        Run byDefault = run("pagerank", "-g", wiki, "--iterations", "3", "--format", "json");
        assertEquals(0, byDefault.exit(), byDefault.err());
        assertEquals("pull", new ObjectMapper().readTree(byDefault.out()).get("method").asText(),
                "the default: the engine's PageRank is not within 1.3x of the pull kernel (docs/benchmarks.md)");
        Run unknown = run("pagerank", "-g", wiki, "--algorithm", "push-pull");
        assertEquals(CommandLine.ExitCode.USAGE, unknown.exit());
        assertTrue(unknown.err().contains("--algorithm must be pregel or pull, was push-pull"), unknown.err());
    }

    /** Afforest (the default), hooking and label propagation on the engine: three implementations, the same -o file, each verified. */
    @Test
    void shouldWriteTheSameComponentsWithAfforestHookingAndLabelPropagation() throws IOException {
        Path shared = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(shared != null, "no shared/datasets beside the checkout");
        String wiki = shared.resolve("snap/wiki-Vote.txt").toString();
        Path afforest = dir.resolve("afforest.tsv");
        Path propagation = dir.resolve("propagation.tsv");
        Run a = run(true, "wcc", "-g", wiki, "-w", "3", "-o", afforest.toString(), "--verify", "--format", "json", "-n", "2");
        assertEquals(0, a.exit(), a.err());
        assertTrue(a.err().contains("verify: OK"), a.err());
        JsonNode ja = new ObjectMapper().readTree(a.out());
        assertEquals("afforest", ja.get("method").asText());
        assertEquals(3, ja.get("threads").asInt());
        assertEquals(2, ja.get("trials").size());
        assertEquals(7066, ja.get("largestComponent").asInt(), "SNAP: wiki-Vote's largest weakly connected component has 7,066 nodes");
        Run p = run(true, "wcc", "-g", wiki, "--algorithm", "pregel-lp", "-o", propagation.toString(), "--verify", "--format", "json");
        assertEquals(0, p.exit(), p.err());
        assertTrue(p.err().contains("verify: OK"), p.err());
        JsonNode jp = new ObjectMapper().readTree(p.out());
        assertEquals(jp.get("components").asInt(), ja.get("components").asInt());
        assertEquals(Files.readAllLines(propagation), Files.readAllLines(afforest));
        Path hooking = dir.resolve("hooking.tsv");
        // worker processes: each reads the parents the others wrote through RStore, not a shared buffer
        Run h = run(true, "wcc", "-g", wiki, "--algorithm", "pregel", "-w", "2", "--worker-processes", "-o", hooking.toString(), "--verify",
                "--format", "json");
        assertEquals(0, h.exit(), h.err());
        assertTrue(h.err().contains("verify: OK"), h.err());
        assertEquals("push", new ObjectMapper().readTree(h.out()).get("messaging").asText());
        assertEquals(Files.readAllLines(hooking), Files.readAllLines(afforest));
        assertEquals(7116, Files.readAllLines(afforest).size(), "a heading and a line per vertex");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"1, gather", "2, gather", "4, gather", "2, push"})
    void shouldMatchPowerIterationWithWorkersInSeparateProcesses(int workers, String messaging) throws IOException {
        Path shared = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(shared != null, "no shared/datasets beside the checkout");
        Path wiki = shared.resolve("snap/wiki-Vote.txt");
        Run r = run(true, "pagerank", "--algorithm", "pregel", "-g", wiki.toString(), "--workers", Integer.toString(workers), "--worker-processes",
                "--messaging", messaging, "--verify", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        // the served cluster's chunks are files in /dev/shm that the worker processes map: data moves as between threads
        assertTrue(r.err().contains("starting " + workers + " worker processes against rstore://127.0.0.1:"), r.err());
        assertTrue(r.err().contains("(their data path: " + (Files.isDirectory(Path.of("/dev/shm")) ? "shm" : "tcp") + ")"), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(workers, j.get("workers").asInt());
        assertEquals(messaging, j.get("messaging").asText());
        assertTrue(j.get("verifyMaxDifference").asDouble() <= 1e-9, "largest difference " + j.get("verifyMaxDifference"));
    }

    /**
     * Worker processes start while the graph loads and wait for their job on standard
     * input: a command whose graph fails to import still ends at once and leaves none of
     * them behind, and a second trial's job starts workers of its own.
     */
    @Test
    void shouldStartWorkerProcessesAheadOfTheJobAndLeaveNoneBehind() throws IOException {
        Path shared = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(shared != null, "no shared/datasets beside the checkout");
        Path bad = dir.resolve("bad.txt"); // found, so the workers start; its import then fails
        Files.writeString(bad, "1 2\n2 x\n");
        long start = System.nanoTime();
        Run failed = run("pagerank", "--algorithm", "pregel", "-g", bad.toString(), "--ids", "integer", "--worker-processes");
        assertNotEquals(0, failed.exit(), failed.err());
        assertTrue(failed.err().contains("bad.txt:2: 'x' is not a vertex id"), failed.err());
        assertTrue(System.nanoTime() - start < 30_000_000_000L, "the failed command waited for its workers");
        assertEquals(List.of(), workerProcessesLeft());
        Run twice = run(true, "pagerank", "--algorithm", "pregel", "-g", shared.resolve("snap/wiki-Vote.txt").toString(), "--workers", "2",
                "--worker-processes", "-n", "2", "--verify", "--format", "json");
        assertEquals(0, twice.exit(), twice.err());
        assertTrue(twice.err().contains("verify: OK"), twice.err());
        assertEquals(2, new ObjectMapper().readTree(twice.out()).get("trials").size());
        assertEquals(List.of(), workerProcessesLeft());
    }

    /** The command lines of this JVM's descendants that are still running a carafe worker. */
    private static List<String> workerProcessesLeft() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(p -> p.info().commandLine().orElse(""))
                .filter(c -> c.contains(CarafeCli.class.getName() + " worker")).toList();
    }

    /**
     * BFS on the engine in worker processes, hybrid: the levels agree with the sequential
     * BFS (--verify), and the JSON shows, per superstep, how the messages travelled; on
     * wiki-Vote from vertex 3 both ways occur.
     */
    @Test
    void shouldRunAHybridBfsInWorkerProcessesAndShowEachSuperstepsChoice() throws IOException {
        Path shared = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(shared != null, "no shared/datasets beside the checkout");
        Run r = run(true, "sssp", "--hops", "--algorithm", "pregel", "-g", shared.resolve("snap/wiki-Vote.txt").toString(), "-r", "3",
                "--workers", "2", "--worker-processes", "--verify", "--format", "json");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("messaging: hybrid (a partition gathers (dense) when its senders send along more than 1/100 of its edges"), r.err());
        assertTrue(r.err().contains("messages gathered,"), r.err());
        assertTrue(r.err().contains("messages pushed,"), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals("hybrid", j.get("messaging").asText());
        assertTrue(j.get("verified").asBoolean(), r.out());
        java.util.Set<String> deliveries = new java.util.HashSet<>();
        for (JsonNode step : j.get("supersteps")) {
            String delivery = step.get("delivery").asText();
            int gathering = step.get("gatheringPartitions").asInt();
            assertEquals(gathering == 0 ? "push" : gathering == 2 ? "gather" : "mixed", delivery, step.toString());
            deliveries.add(delivery);
        }
        assertTrue(deliveries.containsAll(List.of("push", "gather")), deliveries.toString());
    }

    /**
     * --worker-launcher puts a command before each worker's command line (ssh, ip netns exec):
     * here a script that logs the index it was given and runs the rest, against a running
     * cluster on loopback. The workers it started compute PageRank that matches the power
     * iteration.
     */
    @Test
    void shouldStartWorkerProcessesThroughALauncher() throws IOException {
        Path launcher = dir.resolve("launch");
        Path log = dir.resolve("launched");
        Files.writeString(launcher, "#!/bin/sh\necho \"started worker $1\" >> " + log + "\nshift\nexec \"$@\"\n");
        assertTrue(launcher.toFile().setExecutable(true));
        io.rstore.RStoreSettings settings = io.rstore.RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withServerCapacityBytes(256 << 20);
        try (io.rstore.net.NetworkCluster cluster = io.rstore.net.NetworkCluster.start(settings, new java.net.InetSocketAddress("127.0.0.1", 0))) {
            Run r = run(true, "pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--workers", "2", "--worker-processes", "--cluster",
                    "rstore+tcp://127.0.0.1:" + cluster.port(), "--worker-launcher", launcher + " {index}", "--verify", "--format", "json");
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.err().contains("through " + launcher + " 0 (worker 0)"), r.err());
            assertEquals(List.of("started worker 0", "started worker 1"), Files.readAllLines(log).stream().sorted().toList());
            assertTrue(new ObjectMapper().readTree(r.out()).get("verifyMaxDifference").asDouble() <= 1e-12, r.out());
        }
        Run noCluster = run("pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--worker-processes", "--worker-launcher", "ssh node{index}");
        assertEquals(CommandLine.ExitCode.USAGE, noCluster.exit());
        assertTrue(noCluster.err().contains("cannot reach the cluster this command would serve on loopback"), noCluster.err());
        Run noProcesses = run("sssp", "-g", graph().toString(), "-r", "1", "--algorithm", "pregel", "--worker-launcher", "ssh node{index}");
        assertEquals(CommandLine.ExitCode.USAGE, noProcesses.exit());
        assertTrue(noProcesses.err().contains("--worker-launcher starts worker processes: add --worker-processes"), noProcesses.err());
    }

    @Test
    void shouldRefuseContradictoryOptions() throws IOException {
        Run both = run("pagerank", "-g", graph().toString(), "--iterations", "3", "--tolerance", "1e-6");
        assertEquals(CommandLine.ExitCode.USAGE, both.exit());
        assertTrue(both.err().contains("--iterations or --tolerance"), "err was [" + both.err() + "] out was [" + both.out() + "]");
        Run workers = run("pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--workers", "0");
        assertEquals(CommandLine.ExitCode.USAGE, workers.exit());
        Run tooMany = run("pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--workers", "9");
        assertEquals(CommandLine.ExitCode.USAGE, tooMany.exit());
        assertTrue(tooMany.err().contains("cannot cut 4 vertices into 9 partitions"), tooMany.err());
        Run sideways = run("pagerank", "--algorithm", "pregel", "-g", graph().toString(), "--messaging", "sideways");
        assertEquals(CommandLine.ExitCode.USAGE, sideways.exit());
        assertTrue(sideways.err().contains("--messaging must be auto, push, gather or hybrid, was sideways"), sideways.err());
        Run cdlpGather = run("cdlp", "-g", graph().toString(), "--messaging", "gather");
        assertEquals(CommandLine.ExitCode.USAGE, cdlpGather.exit());
        assertTrue(cdlpGather.err().contains("--messaging gather needs a program that sends one value along its out-edges"), cdlpGather.err());
        // refused before the graph is looked at: a missing file would be exit 4
        Run beforeLoad = run("cdlp", "-g", "/nonexistent/graph.txt", "--messaging", "gather");
        assertEquals(CommandLine.ExitCode.USAGE, beforeLoad.exit(), beforeLoad.err());
        assertTrue(beforeLoad.err().contains("cdlp does not: use push or auto"), beforeLoad.err());
        // Afforest runs in this process: the engine's options are refused, not ignored, and before the graph is looked at
        for (String[] pregelOnly : new String[][] {{"--messaging", "push"}, {"--worker-processes"}, {"--checkpoint-every", "2"}}) {
            String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("wcc", "-g", "/nonexistent/graph.txt"),
                    java.util.Arrays.stream(pregelOnly)).toArray(String[]::new);
            Run refused = run(args);
            assertEquals(CommandLine.ExitCode.USAGE, refused.exit(), refused.err());
            assertTrue(refused.err().contains(pregelOnly[0] + " is an option of the Pregel engine, and afforest runs in this process:"
                    + " add --algorithm pregel to run wcc on partition workers"), refused.err());
        }
        Run unknown = run("wcc", "-g", graph().toString(), "--algorithm", "magic");
        assertEquals(CommandLine.ExitCode.USAGE, unknown.exit());
        assertTrue(unknown.err().contains("--algorithm must be afforest, pregel or pregel-lp, was magic"), unknown.err());
        // hooking pushes its messages to parents: gathering is label propagation's
        Run hookingGathers = run("wcc", "-g", "/nonexistent/graph.txt", "--algorithm", "pregel", "--messaging", "hybrid");
        assertEquals(CommandLine.ExitCode.USAGE, hookingGathers.exit(), hookingGathers.err());
        assertTrue(hookingGathers.err().contains("--messaging hybrid is for label propagation, which sends one label along every edge:"
                + " add --algorithm pregel-lp"), hookingGathers.err());
        // a missing required option: one line and where to look, not the whole usage
        Run missing = run("pagerank");
        assertEquals(CommandLine.ExitCode.USAGE, missing.exit());
        assertTrue(missing.err().startsWith("carafe: Missing required option: '--graph=NAME|FILE'"), missing.err());
        assertTrue(missing.err().contains("Try 'carafe pagerank --help' for more information."), missing.err());
        assertEquals(2, missing.err().lines().count(), missing.err());
    }

    /**
     * The Graphalytics commands on a real graph, each with --verify against its independent
     * reference, -o and the JSON summary; with worker processes, so each worker builds the
     * program from its spec.
     */
    @ParameterizedTest
    @CsvSource({"cdlp, label, communities", "lcc, lcc, averageLcc", "tc, triangles, triangles", "scc, component, largestComponent",
            "wcc --algorithm pregel, component, largestComponent", "pagerank --algorithm pregel, pagerank, residual", "sssp --algorithm pregel, distance, reached",
            "sssp --hops --algorithm pregel, hops, reached"})
    void shouldRunEveryGraphalyticsCommandVerifiedInWorkerProcesses(String commandLine, String column, String figure) throws IOException {
        String[] words = commandLine.split(" ");
        String command = words[0];
        Path root = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(root != null && Files.exists(root.resolve("snap/email-Eu-core.txt.gz")),
                "no shared/datasets beside the checkout: this test needs email-Eu-core");
        Path output = dir.resolve(command + ".csv");
        List<String> args = new java.util.ArrayList<>(List.of(words));
        args.addAll(List.of("-g", root.resolve("snap/email-Eu-core.txt.gz").toString(), "--workers", "3", "--worker-processes",
                "--verify", "--format", "json", "-o", output.toString()));
        if (command.equals("sssp")) {
            args.addAll(List.of("--source", "0"));
        }
        Run r = run(true, args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("verify: OK"), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(commandLine.startsWith("sssp --hops") ? "bfs" : command, j.get("algorithm").asText());
        assertTrue(j.has(figure), r.out());
        List<String> lines = Files.readAllLines(output);
        assertEquals("id," + column, lines.getFirst());
        assertEquals(1 + 1005, lines.size(), "a line per vertex of email-Eu-core");
        if (command.equals("tc")) {
            assertEquals(105_461, j.get("triangles").asLong(), "SNAP's triangle count of email-Eu-core");
        }
        if (command.equals("scc")) {
            assertEquals(803, j.get("largestComponent").asLong(), "SNAP's largest SCC of email-Eu-core");
        }
    }

    /**
     * A worker process killed mid-job (SIGKILL) fails the job within 5 s with a one-line
     * error naming the worker and the signal, exit code 3, no stack trace; the superstep
     * timeout (600 s) is not waited out.
     */
    @Test
    void shouldFailFastWhenAWorkerProcessIsKilled() throws Exception {
        Path root = io.carafe.datasets.Datasets.sharedDir().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(root != null && Files.exists(root.resolve("snap/wiki-Vote.txt")),
                "no shared/datasets beside the checkout: this test needs wiki-Vote");
        java.util.concurrent.CompletableFuture<Run> job = java.util.concurrent.CompletableFuture.supplyAsync(() -> run(false, "pagerank",
                "--algorithm", "pregel", "-g", root.resolve("snap/wiki-Vote.txt").toString(), "--iterations", "1000000", "--workers", "2",
                "--worker-processes"));
        ProcessHandle worker = null;
        long waitUntil = System.nanoTime() + 60_000_000_000L;
        while (worker == null && System.nanoTime() < waitUntil && !job.isDone()) {
            worker = ProcessHandle.current().descendants().filter(p -> isWorker(p.pid(), "1")).findFirst().orElse(null);
            Thread.sleep(100);
        }
        if (worker == null) { // not left running a million iterations beside the next tests
            ProcessHandle.current().descendants().filter(h -> isWorker(h.pid(), "0")).forEach(ProcessHandle::destroyForcibly);
        }
        assertTrue(worker != null, "worker process 1 started");
        Thread.sleep(3000); // into the supersteps
        assertFalse(job.isDone(), "the job is still running when the worker is killed");
        long killed = System.nanoTime();
        assertTrue(worker.destroyForcibly(), "SIGKILL sent");
        Run r = job.get(60, java.util.concurrent.TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - killed) / 1e9;
        assertEquals(3, r.exit(), r.err());
        assertTrue(seconds < 5, "failed " + seconds + " s after the kill");
        assertTrue(r.err().contains("carafe: worker 1 failed: worker process 1 (pid " + worker.pid() + ") was killed by signal 9"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace without --debug: " + r.err());
    }

    /**
     * With checkpoints, a worker process SIGKILLed at a random moment after the first
     * complete checkpoint costs a restart, not the job: the values written are byte for
     * byte those of an undisturbed run, and the progress and the JSON summary tell the
     * failure and the checkpoint the new workers started from. PageRank on wiki-Vote
     * (gathering), SSSP on a 2,000-vertex weighted path (pushing with a combiner; one
     * superstep per vertex, so the kill lands mid-job; every distance checked too).
     */
    @ParameterizedTest
    @CsvSource({"pagerank, 3", "sssp, 5"})
    void shouldSurviveAWorkerProcessKilledMidJobWithCheckpoints(String command, long seed) throws Exception {
        Path graph;
        List<String> kernel;
        if (command.equals("pagerank")) {
            Path root = io.carafe.datasets.Datasets.sharedDir().orElse(null);
            org.junit.jupiter.api.Assumptions.assumeTrue(root != null && Files.exists(root.resolve("snap/wiki-Vote.txt")),
                    "no shared/datasets beside the checkout: this test needs wiki-Vote");
            graph = root.resolve("snap/wiki-Vote.txt");
            kernel = List.of("pagerank", "--algorithm", "pregel", "--iterations", "400");
        } else {
            graph = dir.resolve("path.txt");
            StringBuilder path = new StringBuilder();
            for (int v = 0; v < 1999; v++) {
                path.append(v).append(' ').append(v + 1).append(' ').append(1 + v % 7).append('\n');
            }
            Files.writeString(graph, path.toString());
            kernel = List.of("sssp", "--source", "0", "--weights", "file", "--weight-column", "3", "--algorithm", "pregel");
        }
        List<String> common = new java.util.ArrayList<>(kernel);
        common.addAll(List.of("-g", graph.toString(), "--workers", "2", "--worker-processes", "--format", "json"));
        List<String> undisturbed = new java.util.ArrayList<>(common);
        undisturbed.addAll(List.of("-o", dir.resolve("undisturbed.tsv").toString()));
        Run first = run(false, undisturbed.toArray(String[]::new));
        assertEquals(0, first.exit(), first.err());

        Path checkpoints = dir.resolve("checkpoints");
        List<String> disturbed = new java.util.ArrayList<>(common);
        disturbed.addAll(List.of("-o", dir.resolve("disturbed.tsv").toString(), "--checkpoint-every", "5", "--checkpoint-dir", checkpoints.toString()));
        java.util.concurrent.CompletableFuture<Run> job = java.util.concurrent.CompletableFuture.supplyAsync(() -> run(true, disturbed.toArray(String[]::new)));
        long waitUntil = System.nanoTime() + 120_000_000_000L;
        while (!job.isDone() && System.nanoTime() < waitUntil && !hasCompleteCheckpoint(checkpoints)) {
            Thread.sleep(5);
        }
        Thread.sleep(new java.util.SplittableRandom(seed).nextInt(200)); // somewhere after it
        ProcessHandle worker = ProcessHandle.current().descendants().filter(p -> isWorker(p.pid(), "1")).findFirst().orElse(null);
        assertFalse(job.isDone(), "the job ended before a worker could be killed: " + (job.isDone() ? job.get().err() : ""));
        assertTrue(worker != null && worker.destroyForcibly(), "SIGKILL sent to worker 1");
        Run r = job.get(120, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(0, r.exit(), r.err() + r.out());
        assertTrue(r.err().contains("a worker failed in superstep") && r.err().contains("was killed by signal 9")
                && r.err().contains("restarting every worker from the checkpoint of superstep"), r.err());
        JsonNode j = new ObjectMapper().readTree(r.out());
        assertEquals(1, j.get("restarts").size(), r.out());
        JsonNode restart = j.get("restarts").get(0);
        assertEquals(0, restart.get("resumedFrom").asLong() % 5);
        assertTrue(restart.get("resumedFrom").asLong() <= restart.get("failedInSuperstep").asLong(), restart.toString());
        assertEquals(Files.readString(dir.resolve("undisturbed.tsv")), Files.readString(dir.resolve("disturbed.tsv")),
                "values after a restart from superstep " + restart.get("resumedFrom"));
        if (command.equals("sssp")) { // and right: the distance to v is the sum of the weights before it
            List<String> lines = Files.readAllLines(dir.resolve("disturbed.tsv"));
            long distance = 0;
            for (int v = 0; v < 2000; v++) {
                assertEquals(v + "\t" + distance, lines.get(1 + v));
                distance += 1 + v % 7;
            }
        }
        try (var left = Files.list(checkpoints)) {
            assertEquals(0, left.count(), "the job's checkpoints go when it ends");
        }
    }

    private static boolean hasCompleteCheckpoint(Path checkpoints) {
        try (var jobs = Files.list(checkpoints)) {
            for (Path job : (Iterable<Path>) jobs::iterator) {
                try (var steps = Files.list(job)) {
                    if (steps.anyMatch(p -> p.getFileName().toString().matches("step-\\d+"))) { // complete: not .partial
                        return true;
                    }
                }
            }
        } catch (java.io.IOException e) {
            // not there yet
        }
        return false;
    }

    /**
     * --estimate reads the graph file's header and nothing else: it prints with a cluster URI
     * that nobody serves (the cluster is never reached), and a source vertex is looked up in
     * the file, so a wrong one is named before any loading.
     */
    @Test
    void shouldEstimateBeforeReachingTheClusterOrLoadingTheGraph() throws IOException {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String nobody = "rstore+tcp://127.0.0.1:" + closedPort;
        for (String[] command : List.of(new String[] {"pagerank", "--algorithm", "pregel"}, new String[] {"sssp", "--source", "3", "--algorithm", "pregel"}, new String[] {"wcc", "--algorithm", "pregel"})) {
            List<String> args = new java.util.ArrayList<>(List.of(command));
            args.addAll(List.of("-g", graph().toString(), "--cluster", nobody, "--estimate", "--format", "json"));
            Run r = run(args.toArray(String[]::new));
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().contains("\"peakBytes\"") && r.out().contains("\"vertices\" : 4"), r.out());
            assertFalse(r.err().contains("RStore in"), "nothing was loaded into RStore: " + r.err());
        }
        Run wrongSource = run("sssp", "--source", "9", "--algorithm", "pregel", "-g", graph().toString(), "--cluster", nobody, "--estimate");
        assertNotEquals(0, wrongSource.exit());
        assertTrue(wrongSource.err().contains("--source 9 is not a vertex of graph"), wrongSource.err());
    }

    /** Bad options are found before the graph is imported or loaded: nothing reaches the cache. */
    @ParameterizedTest
    @CsvSource({"tc --workers 0, --workers must be 1..1024", "scc --format csv, --format must be table or json",
            "pagerank --algorithm pregel --messaging sideways, --messaging must be auto, push, gather or hybrid", "cdlp --superstep-timeout 0, --superstep-timeout must be >= 1",
            "pagerank -o out.parquet, -o out.parquet: results are written as .tsv, .csv or .txt",
            "pagerank --chunk-size 3, --chunk-size must be a power of two from 64KiB to 1GiB, was 3",
            "wcc --memory-servers 0, --memory-servers must be 1..1024", "sssp --source 1 --chunk-size lots, --chunk-size must be a size such as 16MiB"})
    void shouldCheckOptionsBeforeLoadingTheGraph(String commandLine, String message) throws IOException {
        List<String> args = new java.util.ArrayList<>(List.of(commandLine.split(" ")));
        args.addAll(List.of("-g", graph().toString()));
        Run r = run(args.toArray(String[]::new));
        assertEquals(CommandLine.ExitCode.USAGE, r.exit(), r.err());
        assertTrue(r.err().contains(message), r.err());
        assertFalse(Files.exists(dir.resolve("cache")), "nothing was imported");
    }

    /** An output that cannot be written is refused before anything is imported: under a file, or a directory named as the file. */
    @Test
    void shouldRefuseAnUnwritableOutputBeforeLoading() throws IOException {
        Path plain = Files.writeString(dir.resolve("plain.txt"), "a file, not a directory");
        Run under = run("wcc", "-g", graph().toString(), "-o", plain.resolve("sub/x.tsv").toString());
        assertEquals(CommandLine.ExitCode.USAGE, under.exit(), under.err());
        assertTrue(under.err().contains(plain + " is not a directory"), under.err());
        Path folder = Files.createDirectories(dir.resolve("out.tsv"));
        Run directory = run("sssp", "--source", "1", "-g", graph().toString(), "-o", folder.toString());
        assertEquals(CommandLine.ExitCode.USAGE, directory.exit(), directory.err());
        assertTrue(directory.err().contains("is a directory; name a file in it"), directory.err());
        assertFalse(Files.exists(dir.resolve("cache")), "nothing was imported");
    }

    /** Flag letters that mean something else in gapbs say so; PageRank's help does not claim gapbs's -i. */
    @Test
    void shouldSayWhereFlagsDifferFromGapbs() {
        String pagerank = CarafeCli.commandLine().getSubcommands().get("pagerank").getUsageMessage();
        for (String said : List.of("not gapbs's -g", "in gapbs -d is the SSSP delta", "gapbs's -i is a maximum", "in gapbs -k is the average degree")) {
            assertTrue(pagerank.replaceAll("\\s+", " ").contains(said), "pagerank --help says " + said + ":\n" + pagerank);
        }
        assertFalse(pagerank.contains("like gapbs"), pagerank);
    }
}

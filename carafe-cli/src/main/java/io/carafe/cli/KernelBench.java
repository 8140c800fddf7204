package io.carafe.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.datasets.GraphResolver;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.ImportOptions;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * {@code carafe bench --kernels}: each kernel run as a user runs it ({@code carafe pagerank
 * ... --format json}, a JVM of its own, from the graph cache), and with {@code --gapbs DIR}
 * the GAP benchmark suite's binary for the same kernel on the same graph right after it,
 * trial by trial, so both see the machine in the same state. Times are each side's own
 * kernel time: Carafe's compute (or search) seconds, gapbs's "Trial Time"; loading and job
 * setup are reported beside, not in the ratio.
 */
final class KernelBench {
    /** Which of gapbs's serialized graphs a kernel reads. */
    private enum Input { DIRECTED, WEIGHTED, SYMMETRIC }

    /**
     * A kernel: the carafe command and arguments ({@code SOURCE} replaced by the source's
     * original id), whether it takes -w, and gapbs's binary and arguments (null if gapbs has
     * no such kernel) with the graph it reads.
     */
    private record Kernel(String name, List<String> carafe, boolean takesWorkers, List<String> gapbs, Input input) {
        boolean weighted() {
            return input == Input.WEIGHTED;
        }
    }

    /** One run of a kernel (or of gapbs's converter) failed: the kernel is reported as failed, the others go on. */
    static final class KernelFailed extends RuntimeException {
        KernelFailed(String message) {
            super(message);
        }
    }

    private static final String SOURCE = "SOURCE";
    private static final Map<String, Kernel> KERNELS = new LinkedHashMap<>();

    static {
        add(new Kernel("pr", List.of("pagerank", "--algorithm", "pregel", "--iterations", "32"), true, List.of("pr", "-i", "32", "-t", "0"), Input.DIRECTED));
        add(new Kernel("pr-pull", List.of("pagerank", "--iterations", "32", "--algorithm", "pull"), true, List.of("pr", "-i", "32", "-t", "0"),
                Input.DIRECTED));
        add(new Kernel("bfs", List.of("bfs", "--source", SOURCE), true, List.of("bfs", "-r", SOURCE), Input.DIRECTED));
        add(new Kernel("bfs-online", List.of("bfs", "--source", SOURCE, "--algorithm", "online"), false, List.of("bfs", "-r", SOURCE), Input.DIRECTED));
        add(new Kernel("bfs-pregel", List.of("sssp", "--source", SOURCE, "--hops", "--algorithm", "pregel"), true, List.of("bfs", "-r", SOURCE),
                Input.DIRECTED));
        add(new Kernel("sssp", List.of("sssp", "--source", SOURCE), true, List.of("sssp", "-r", SOURCE), Input.WEIGHTED));
        add(new Kernel("sssp-pregel", List.of("sssp", "--source", SOURCE, "--algorithm", "pregel"), true, List.of("sssp", "-r", SOURCE), Input.WEIGHTED));
        add(new Kernel("dijkstra", List.of("dijkstra", "--source", SOURCE), false, List.of("sssp", "-r", SOURCE), Input.WEIGHTED));
        add(new Kernel("wcc", List.of("wcc"), true, List.of("cc"), Input.DIRECTED)); // gapbs's Afforest reads in-edges of a directed graph too
        add(new Kernel("wcc-pregel", List.of("wcc", "--algorithm", "pregel"), true, List.of("cc"), Input.DIRECTED));
        add(new Kernel("wcc-lp", List.of("wcc", "--algorithm", "pregel-lp"), true, List.of("cc"), Input.DIRECTED));
        add(new Kernel("cdlp", List.of("cdlp"), true, null, Input.DIRECTED));
        add(new Kernel("lcc", List.of("lcc"), true, null, Input.DIRECTED));
        add(new Kernel("tc", List.of("tc"), true, List.of("tc"), Input.SYMMETRIC)); // gapbs's tc refuses a directed graph
    }

    private static void add(Kernel k) {
        KERNELS.put(k.name(), k);
    }

    static String names() {
        return String.join(",", KERNELS.keySet());
    }

    private final BenchCommand options;
    private final PrintStream log = System.err;

    KernelBench(BenchCommand options) {
        this.options = options;
    }

    /** The kernels asked for, checked before anything runs. */
    private List<Kernel> kernels() {
        List<Kernel> list = new ArrayList<>();
        for (String name : options.kernels) {
            Kernel k = KERNELS.get(name.trim());
            if (k == null) {
                throw new IllegalArgumentException("--kernels: no kernel '" + name + "'; choose from " + names());
            }
            list.add(k);
        }
        return list;
    }

    private Path gapbsBinary(String name) {
        Path binary = options.gapbs.resolve(name);
        if (!Files.isExecutable(binary)) {
            throw new IllegalArgumentException("--gapbs " + options.gapbs + " has no executable '" + name + "': build gapbs there first"
                    + " (git clone https://github.com/sbeamer/gapbs && make; it is never downloaded by Carafe)");
        }
        return binary;
    }

    /** Runs the kernels into {@code result}; false if one of them failed (its row says why). */
    boolean run(ObjectNode result) throws IOException, InterruptedException {
        List<Kernel> kernels = kernels();
        if (options.cluster.cluster != null) {
            throw new IllegalArgumentException("--kernels runs each kernel's command on an embedded cluster of its own, as a user's first run does;"
                    + " --cluster is for the store benchmark (without --kernels)");
        }
        if (options.workers < 1) {
            throw new IllegalArgumentException("--workers must be >= 1, was " + options.workers);
        }
        Trials.check(options.trials);
        if (options.gapbsTrials < 1) {
            throw new IllegalArgumentException("--gapbs-trials must be >= 1, was " + options.gapbsTrials);
        }
        if (options.carafeTrials < 1) {
            throw new IllegalArgumentException("--carafe-trials must be >= 1, was " + options.carafeTrials);
        }
        if (options.gapbs != null) {
            gapbsBinary("converter");
            kernels.stream().filter(k -> k.gapbs() != null).forEach(k -> gapbsBinary(k.gapbs().getFirst()));
        }
        boolean anyWeighted = kernels.stream().anyMatch(Kernel::weighted);
        Map<Input, Path> gapbsGraphs = new LinkedHashMap<>();
        long source;
        try (GraphFile directed = resolve(options.graph.importOptions())) {
            result.put("graph", options.graph.graph).put("vertices", directed.header().vertexCount()).put("edges", directed.header().edgeCount());
            source = options.source != null ? options.source : randomSource(directed);
            if (options.gapbs != null) {
                if (kernels.stream().anyMatch(k -> k.gapbs() != null && k.input() == Input.DIRECTED)) {
                    gapbsGraphs.put(Input.DIRECTED, gapbsGraph(directed, Input.DIRECTED));
                }
                if (kernels.stream().anyMatch(k -> k.gapbs() != null && k.input() == Input.SYMMETRIC)) {
                    gapbsGraphs.put(Input.SYMMETRIC, gapbsGraph(directed, Input.SYMMETRIC));
                }
            }
        }
        if (anyWeighted && options.gapbs != null) {
            try (GraphFile weighted = resolve(options.graph.importOptions(true))) {
                gapbsGraphs.put(Input.WEIGHTED, gapbsGraph(weighted, Input.WEIGHTED));
            }
        }
        result.put("source", source).put("workers", options.workers).put("trials", options.trials).put("carafeTrialsPerProcess", options.carafeTrials);
        if (options.gapbs != null) {
            result.put("gapbs", options.gapbs.toAbsolutePath().toString());
        }
        ArrayNode rows = result.putArray("kernels");
        Map<Kernel, ObjectNode> rowOf = new LinkedHashMap<>();
        for (Kernel k : kernels) {
            ObjectNode row = rows.addObject().put("kernel", k.name());
            row.put("carafe", String.join(" ", carafeArguments(k, source)));
            row.putArray("carafeSeconds");
            row.putArray("carafeSetupSeconds");
            row.putArray("carafeSupersteps");
            if (options.gapbs != null && k.gapbs() != null) {
                row.put("gapbsCommand", String.join(" ", gapbsCommand(k, source, gapbsGraphs.get(k.input()))));
                row.putArray("gapbsSeconds");
            }
            rowOf.put(k, row);
        }
        // trial-major: every kernel once (Carafe, then gapbs), then again, so a slow spell of the machine hits both sides
        for (int trial = 1; trial <= options.trials; trial++) {
            for (Kernel k : kernels) {
                ObjectNode row = rowOf.get(k);
                if (row.has("failed")) {
                    continue;
                }
                try {
                    log.printf("trial %d of %d: %s (carafe)%n", trial, options.trials, k.name());
                    double[] carafe = runCarafe(k, source);
                    if (row.has("gapbsSeconds")) {
                        log.printf("trial %d of %d: %s (gapbs %s)%n", trial, options.trials, k.name(), k.gapbs().getFirst());
                        ((ArrayNode) row.get("gapbsSeconds")).add(runGapbs(gapbsCommand(k, source, gapbsGraphs.get(k.input()))));
                    }
                    ((ArrayNode) row.get("carafeSeconds")).add(carafe[0]);
                    ((ArrayNode) row.get("carafeSetupSeconds")).add(carafe[1]);
                    ((ArrayNode) row.get("carafeSupersteps")).add((long) carafe[2]);
                } catch (KernelFailed e) {
                    log.println("carafe bench: " + e.getMessage());
                    row.put("failed", e.getMessage().lines().findFirst().orElse(""));
                }
            }
        }
        for (ObjectNode row : rowOf.values()) {
            if (row.has("failed")) {
                continue;
            }
            double carafe = median(row.get("carafeSeconds"));
            row.put("carafeMedianSeconds", carafe);
            if (row.has("gapbsSeconds")) {
                double gapbs = median(row.get("gapbsSeconds"));
                row.put("gapbsMedianSeconds", gapbs);
                row.put("ratio", carafe / gapbs);
            }
        }
        return rowOf.values().stream().noneMatch(row -> row.has("failed"));
    }

    private GraphFile resolve(ImportOptions importOptions) throws IOException {
        return GraphResolver.resolve(options.graph.graph, importOptions, options.graph.cacheDir(), log).imported().file();
    }

    /** A vertex with out-edges, the same for every kernel and both sides (seeded, as gapbs's own pick is). */
    private static long randomSource(GraphFile g) {
        SplittableRandom random = new SplittableRandom(27491095);
        long n = g.header().vertexCount();
        for (int tries = 0; tries < 1_000_000; tries++) {
            long v = random.nextLong(n);
            if (VertexLayout.degree(g.vertices(), v) > 0) {
                return VertexLayout.originalId(g.vertices(), v);
            }
        }
        throw new IllegalArgumentException("the graph has (almost) no vertex with out-edges to search from; give --source");
    }

    private List<String> carafeArguments(Kernel k, long source) {
        List<String> args = new ArrayList<>();
        for (String a : k.carafe()) {
            args.add(a.equals(SOURCE) ? Long.toString(source) : a);
        }
        args.addAll(options.graph.arguments(k.weighted()));
        if (k.takesWorkers()) {
            args.addAll(List.of("--workers", Integer.toString(options.workers)));
        }
        if (options.carafeTrials > 1) {
            args.addAll(List.of("--trials", Integer.toString(options.carafeTrials)));
        }
        args.addAll(List.of("--format", "json"));
        return args;
    }

    /**
     * Carafe's kernel seconds, its setup (load into RStore and job setup) and supersteps (0 for
     * a search) from the command's JSON; with --carafe-trials, the median of the process's
     * trials (as gapbs's), its setup the first trial's (loading happens once).
     */
    private double[] runCarafe(Kernel k, long source) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // this JVM's own options (bin/carafe's heap, direct memory, native access, library path)
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> !a.startsWith("-agentlib:jdwp")).forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CarafeCli.class.getName()));
        command.addAll(carafeArguments(k, source));
        String out = run(command, Map.of(), "carafe " + k.carafe().getFirst());
        JsonNode json = new ObjectMapper().readTree(out);
        JsonNode seconds = json.get("seconds");
        if (seconds == null) {
            throw new KernelFailed("carafe " + k.carafe().getFirst() + " printed no seconds in its JSON: " + out);
        }
        if (seconds.isObject()) { // a Pregel command: compute, with load and setup beside, and its supersteps
            double compute = seconds.get("compute").asDouble();
            JsonNode trials = json.path("trials");
            if (options.carafeTrials > 1 && trials.size() == options.carafeTrials) {
                double[] each = new double[trials.size()];
                for (int t = 0; t < each.length; t++) {
                    JsonNode trial = trials.get(t);
                    each[t] = trial.has("computeSeconds") ? trial.get("computeSeconds").asDouble() : trial.path("searchSeconds").asDouble();
                }
                compute = median(each);
            } else if (options.carafeTrials > 1) {
                throw new KernelFailed("carafe " + k.carafe().getFirst() + " reported " + trials.size() + " trials, not the "
                        + options.carafeTrials + " of --carafe-trials: " + out);
            }
            return new double[] {compute, seconds.path("load").asDouble() + seconds.path("setup").asDouble(), json.path("supersteps").size()};
        }
        return new double[] {seconds.asDouble(), json.path("setupSeconds").asDouble(), 0}; // a search: its own seconds, and reading the graph in
    }

    private List<String> gapbsCommand(Kernel k, long source, Path graph) {
        List<String> command = new ArrayList<>();
        command.add(gapbsBinary(k.gapbs().getFirst()).toString());
        command.addAll(List.of("-f", graph.toString(), "-n", Integer.toString(options.gapbsTrials)));
        for (String a : k.gapbs().subList(1, k.gapbs().size())) {
            command.add(a.equals(SOURCE) ? Long.toString(source) : a);
        }
        if (k.gapbs().getFirst().equals("sssp")) {
            command.addAll(List.of("-d", Integer.toString(options.gapbsDelta)));
        }
        return command;
    }

    /** The median of the "Trial Time"s gapbs printed (one per trial, --gapbs-trials of them). */
    private double runGapbs(List<String> command) throws IOException, InterruptedException {
        String out = run(command, Map.of("OMP_NUM_THREADS", Integer.toString(options.workers)), "gapbs " + Path.of(command.getFirst()).getFileName());
        List<Double> trials = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("Trial Time:")) {
                trials.add(Double.parseDouble(line.substring("Trial Time:".length()).trim()));
            }
        }
        if (trials.isEmpty()) {
            throw new KernelFailed(String.join(" ", command) + " printed no 'Trial Time:' line:\n" + out);
        }
        trials.sort(null);
        return trials.get(trials.size() / 2);
    }

    /**
     * gapbs's serialized graph for {@code input}, converted once by gapbs's own converter from
     * the edge list of the cached graph (so both sides read the same edges and weights) and
     * kept beside the cache; made again when the cache file is newer.
     */
    private Path gapbsGraph(GraphFile g, Input input) throws IOException, InterruptedException {
        Path dir = options.graph.cacheDir().resolve("gapbs");
        Files.createDirectories(dir);
        String base = g.path().getFileName().toString().replaceFirst("\\.carafe$", "");
        Path sg = dir.resolve(base + switch (input) {
            case DIRECTED -> ".sg";
            case SYMMETRIC -> "-symmetric.sg";
            case WEIGHTED -> ".wsg";
        });
        if (Files.exists(sg) && Files.getLastModifiedTime(sg).compareTo(Files.getLastModifiedTime(g.path())) >= 0) {
            return sg;
        }
        Path text = dir.resolve(base + "." + ProcessHandle.current().pid() + (input == Input.WEIGHTED ? ".wel" : ".el"));
        Path partial = dir.resolve(sg.getFileName() + ".partial"); // gapbs reads the format from the name, but writes what -b says
        try {
            log.printf("writing %s for gapbs's converter%n", text);
            try (Writer w = Files.newBufferedWriter(text)) {
                EdgeLists.write(g, w, input == Input.WEIGHTED);
            }
            List<String> convert = new ArrayList<>(List.of(gapbsBinary("converter").toString()));
            if (input == Input.SYMMETRIC) {
                convert.add("-s");
            }
            convert.addAll(List.of("-f", text.toString()));
            if (input == Input.WEIGHTED) {
                convert.add("-w");
            }
            convert.addAll(List.of("-b", partial.toString()));
            log.printf("converting with %s%n", String.join(" ", convert));
            run(convert, Map.of(), "gapbs converter");
            Files.move(partial, sg, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return sg;
        } finally {
            Files.deleteIfExists(text);
            Files.deleteIfExists(partial);
        }
    }

    /** Runs a command to its end (bounded by --kernel-timeout); its stdout, or an error with the end of its output. */
    private String run(List<String> command, Map<String, String> env, String what) throws IOException, InterruptedException {
        Path out = Files.createTempFile("carafe-bench-", ".out");
        Path err = Files.createTempFile("carafe-bench-", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().putAll(env);
            Process p = builder.start();
            if (!p.waitFor(options.kernelTimeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new KernelFailed(what + " did not finish within --kernel-timeout " + options.kernelTimeoutSeconds + " s: "
                        + String.join(" ", command));
            }
            String stdout = Files.readString(out);
            if (p.exitValue() != 0) {
                String hint = p.exitValue() == 137 ? " (the kernel's memory? the system log says whether the OOM killer took it)" : "";
                throw new KernelFailed(what + " " + ProcessWorkers.exit(p.exitValue()) + hint + ": " + String.join(" ", command) + "\n"
                        + tail(Files.readString(err) + stdout));
            }
            return stdout;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String tail(String text) {
        List<String> lines = Arrays.asList(text.split("\n"));
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    private static double median(JsonNode values) {
        double[] v = new double[values.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = values.get(i).asDouble();
        }
        return median(v);
    }

    private static double median(double[] v) {
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** The table for people: one line per kernel. */
    static void print(ObjectNode r, PrintWriter out) {
        out.printf("Carafe bench --kernels: %s, %,d vertices, %,d edges; %d workers (gapbs: OMP_NUM_THREADS=%d); %d trials, interleaved;"
                        + " source %d%n", r.get("graph").asText(), r.get("vertices").asLong(), r.get("edges").asLong(), r.get("workers").asInt(),
                r.get("workers").asInt(), r.get("trials").asInt(), r.get("source").asLong());
        int perProcess = r.path("carafeTrialsPerProcess").asInt(1);
        out.println("Seconds of each side's kernel (Carafe: compute or search" + (perProcess > 1 ? ", the median of " + perProcess + " trials in each JVM"
                : ", a fresh JVM each") + "; gapbs: the median Trial Time of each process); median, then every trial.");
        out.printf("%-11s %9s %9s %8s  %s%n", "kernel", "carafe", "gapbs", "ratio", "trials (carafe | gapbs); carafe's load+setup; supersteps");
        for (JsonNode row : r.get("kernels")) {
            if (row.has("failed")) {
                out.printf("%-11s FAILED: %s%n", row.get("kernel").asText(), row.get("failed").asText());
                continue;
            }
            boolean gapbs = row.has("gapbsSeconds");
            long supersteps = row.get("carafeSupersteps").get(0).asLong();
            out.printf("%-11s %9.3f %9s %8s  %s | %s; %s; %s%n", row.get("kernel").asText(), row.get("carafeMedianSeconds").asDouble(),
                    gapbs ? String.format("%.3f", row.get("gapbsMedianSeconds").asDouble()) : "-",
                    gapbs ? String.format("%.2fx", row.get("ratio").asDouble()) : "-",
                    list(row.get("carafeSeconds")), gapbs ? list(row.get("gapbsSeconds")) : "-", list(row.get("carafeSetupSeconds")),
                    supersteps > 0 ? Long.toString(supersteps) : "- (not Pregel)");
        }
        for (JsonNode row : r.get("kernels")) {
            out.printf("  %s: carafe %s%s%n", row.get("kernel").asText(), row.get("carafe").asText(),
                    row.has("gapbsCommand") ? "; gapbs " + row.get("gapbsCommand").asText() : "");
        }
    }

    private static String list(JsonNode values) {
        StringBuilder s = new StringBuilder();
        for (JsonNode v : values) {
            s.append(s.isEmpty() ? "" : " ").append(String.format("%.3f", v.asDouble()));
        }
        return s.toString();
    }
}

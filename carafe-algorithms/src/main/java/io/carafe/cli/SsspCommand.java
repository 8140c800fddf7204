package io.carafe.cli;

import io.carafe.algorithms.online.Verifier;
import io.carafe.algorithms.pregel.BreadthFirstSearch;
import io.carafe.algorithms.pregel.ShortestPaths;
import io.rstore.RStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

@Command(name = "sssp",
        mixinStandardHelpOptions = true,
        header = "Single-source shortest paths on the Pregel engine (min combiner).",
        description = {"Distances from --source over edge weights (hops on an unweighted graph; --hops forces hops,",
                "which is BFS levels). -o writes every distance (inf when unreachable). For one query on a",
                "large graph, carafe dijkstra (online API) touches only what it needs."})
final class SsspCommand implements Callable<Integer> {
    @Mixin
    GraphOptions graph;

    @Mixin
    ClusterOptions cluster;

    @Mixin
    EngineOptions engine;

    @Option(names = {"-r", "--source"}, required = true, description = "source vertex (original id)")
    long source;

    @Option(names = "--hops", description = "count edges, ignoring weights (BFS levels)")
    boolean hops;

    @Option(names = "--max-supersteps", defaultValue = "100000", description = "bound on supersteps (default: ${DEFAULT-VALUE})")
    long maxSupersteps;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        long start = System.nanoTime();
        PrintWriter out = spec.commandLine().getOut();
        try {
            try (RStore rstore = cluster.start(engine.workerProcesses); LoadedGraph g = LoadedGraph.load(rstore, graph, System.err)) {
                if (!hops && g.graph().isWeighted() && g.graph().header().minWeight() < 0) {
                    throw new IllegalArgumentException("graph '" + g.name() + "' has negative weights; import with --weight-map abs or add:X");
                }
                int s = g.vertex(source, "--source");
                io.carafe.pregel.VertexProgram program = hops ? new BreadthFirstSearch(s) : new ShortestPaths(s);
                try (PregelRun run = PregelRun.run(hops ? "bfs" : "sssp", rstore, g, program, engine, maxSupersteps, start)) {
                    double[] distance = hops ? depths(run.result.longs(0)) : run.result.doubles(0);
                    long reached = 0;
                    double farthest = 0;
                    for (double d : distance) {
                        if (!Double.isInfinite(d)) {
                            reached++;
                            farthest = Math.max(farthest, d);
                        }
                    }
                    run.summary.put("source", source);
                    run.summary.put("reached", reached);
                    run.summary.put("largestDistance", farthest);
                    if (hops) {
                        run.writeValues(engine, "hops", (v, value, line) -> line.append(value.getLong(0) == BreadthFirstSearch.UNREACHED
                                ? "inf" : Long.toString(value.getLong(0))));
                    } else {
                        run.writeValues(engine, "distance", (v, value, line) -> line.append(Output.distance(value.getDouble(0))));
                    }
                    if (engine.verify) {
                        double[] want = hops ? hopsOf(Verifier.bfsDepths(g.file(), s)) : Verifier.shortestDistances(g.file(), s);
                        boolean ok = java.util.Arrays.equals(want, distance);
                        System.err.println(ok ? "verify: OK (every distance matches an independent implementation)" : "verify: FAILED (distances differ)");
                        if (!ok) {
                            run.finish(engine, out);
                            return 1;
                        }
                    }
                    if (!run.finish(engine, out)) {
                        out.printf("%s from %d on %s: reached %,d of %,d vertices, largest distance %s, %d supersteps, compute %.2f s%n",
                                hops ? "bfs" : "sssp", source, g.name(), reached, distance.length, Output.distance(farthest),
                                run.result.supersteps().size(), run.result.computeSeconds());
                        out.flush();
                    }
                }
            }
        } finally {
            cluster.stop();
        }
        return 0;
    }

    private static double[] depths(long[] depth) {
        double[] out = new double[depth.length];
        for (int v = 0; v < depth.length; v++) {
            out[v] = depth[v] == BreadthFirstSearch.UNREACHED ? Double.POSITIVE_INFINITY : depth[v];
        }
        return out;
    }

    private static double[] hopsOf(int[] depth) {
        double[] out = new double[depth.length];
        for (int v = 0; v < depth.length; v++) {
            out[v] = depth[v] < 0 ? Double.POSITIVE_INFINITY : depth[v];
        }
        return out;
    }
}

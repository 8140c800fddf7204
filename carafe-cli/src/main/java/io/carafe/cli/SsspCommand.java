package io.carafe.cli;

import io.carafe.algorithms.online.Verifier;
import io.carafe.algorithms.pregel.BreadthFirstSearch;
import io.carafe.algorithms.pregel.ShortestPaths;
import io.carafe.pregel.VertexProgram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Arrays;

@Command(name = "sssp",
        mixinStandardHelpOptions = true,
        header = "Single-source shortest paths on the Pregel engine (min combiner).",
        description = {"Distances from --source over edge weights (hops on an unweighted graph; --hops forces hops,",
                "which is BFS levels). -o writes every distance (inf when unreachable). For one query on a",
                "large graph, carafe dijkstra (online API) touches only what it needs."})
final class SsspCommand extends ProgramCommand {
    @Option(names = {"-r", "--source"}, required = true, description = "source vertex (original id)")
    long source;

    @Option(names = "--hops", description = "count edges, ignoring weights (BFS levels)")
    boolean hops;

    @Option(names = "--max-supersteps", defaultValue = "100000", description = "bound on supersteps (default: ${DEFAULT-VALUE})")
    long maxSupersteps;

    @Override
    String algorithm() {
        return hops ? "bfs" : "sssp";
    }

    @Override
    String valueName() {
        return hops ? "hops" : "distance";
    }

    @Override
    long maxSupersteps() {
        return maxSupersteps;
    }

    @Override
    VertexProgram program(LoadedGraph g) {
        if (!hops && g.graph().isWeighted() && g.graph().header().minWeight() < 0) {
            throw new IllegalArgumentException("graph '" + g.name() + "' has negative weights; import with --weight-map abs or add:X");
        }
        int s = g.vertex(source, "--source");
        return hops ? new BreadthFirstSearch(s) : new ShortestPaths(s);
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) {
        double[] distance = distances(run);
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
        return String.format("from %d reached %,d of %,d vertices, largest distance %s", source, reached, distance.length,
                Output.distance(farthest));
    }

    @Override
    String verify(PregelRun run, LoadedGraph g) {
        int s = g.vertex(source, "--source");
        double[] want = hops ? hopsOf(Verifier.bfsDepths(g.file(), s)) : Verifier.shortestDistances(g.file(), s);
        return Arrays.equals(want, distances(run)) ? null : "distances differ";
    }

    /** Every distance as a double, +Infinity where unreached (BFS depths included). */
    private double[] distances(PregelRun run) {
        if (!hops) {
            return run.result.doubles(0);
        }
        long[] depth = run.result.longs(0);
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

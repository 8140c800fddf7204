package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.resident.DeltaStepping;
import io.carafe.algorithms.resident.Parallel;
import io.carafe.algorithms.resident.ResidentGraph;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.pregel.BreadthFirstSearch;
import io.carafe.algorithms.pregel.ShortestPaths;
import io.carafe.pregel.VertexProgram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "sssp",
        mixinStandardHelpOptions = true,
        header = "Single-source shortest paths: delta-stepping in this process, or on the Pregel engine, which scales past one machine.",
        description = {"Distances from --source over edge weights (hops on an unweighted graph; --hops forces hops,",
                "which is BFS levels). -o writes every distance (inf when unreachable). For one query on a",
                "large graph, carafe dijkstra (online API) touches only what it needs.",
                "delta-stepping (default): -w threads over the graph read whole into this process, buckets --delta wide (GAP's sssp).",
                "pregel: on the partition workers (--worker-processes too), a message per edge of a vertex whose distance improved,",
                "min-combined, sent once its distance falls in the current bucket, --delta wide (Delta-stepping's order)."})
final class SsspCommand extends ProgramCommand {
    @Option(names = "--algorithm", paramLabel = "delta-stepping|pregel", defaultValue = "delta-stepping",
            description = "delta-stepping: in this process with -w threads; pregel: on the engine, which scales past one machine"
                    + " (default: ${DEFAULT-VALUE})")
    String method;

    @Option(names = "--delta", paramLabel = "D", description = "bucket width (default: delta-stepping the smallest weight, but at least the largest / 1024,"
            + " 1 for hops; pregel twice the largest weight, unbounded on an unweighted graph)")
    Double delta;
    private double engineDelta; // the engine's bucket width, as chosen for the graph

    @Option(names = {"-r", "--source"}, required = true, description = "source vertex (its original id, or its name)")
    String source;

    @Option(names = "--hops", description = "count edges, ignoring weights (BFS levels)")
    boolean hops;

    @Option(names = "--max-supersteps", defaultValue = "100000", description = "bound on supersteps (default: ${DEFAULT-VALUE})")
    long maxSupersteps;

    @Override
    String threadMethod() {
        String chosen = switch (method) {
            case "delta-stepping" -> "delta-stepping";
            case "pregel" -> null;
            default -> throw new IllegalArgumentException("--algorithm must be delta-stepping or pregel, was " + method);
        };
        if (chosen == null && hops && delta != null) {
            throw new IllegalArgumentException("--delta is a bucket width for distances; --hops on the pregel algorithm runs BFS, which has none");
        }
        if (delta != null && !(delta > 0 && delta < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("--delta must be a positive number, was " + delta);
        }
        return chosen;
    }

    @Override
    ThreadKernel threadKernel(LoadedGraph g, ResidentGraph resident, Parallel threads) {
        int s = g.vertex(source, "--source");
        double width = delta != null ? delta : DeltaStepping.suggestedDelta(resident, hops);
        DeltaStepping search = new DeltaStepping(resident, threads, width, hops);
        System.err.printf("delta-stepping with buckets %s wide%n", Output.distance(width));
        return new ThreadKernel() {
            private DeltaStepping.Result last;

            @Override
            public double run() {
                last = search.run(s);
                return last.seconds();
            }

            @Override
            public String summarize(ObjectNode report) {
                report.put("delta", width);
                return SsspCommand.this.summarize(last.distance(), report);
            }

            @Override
            public void format(int v, StringBuilder out) {
                out.append(Output.distance(last.distance()[v]));
            }

            @Override
            public Verdict verify(LoadedGraph graph) {
                return SsspCommand.this.verify(graph, last.distance());
            }
        };
    }

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
    boolean mayBroadcast() {
        return true; // BFS sends its level along its out-edges, SSSP its distance (plus each edge's weight)
    }

    @Override
    VertexProgram program(ResolvedGraph g) {
        if (!hops && g.header().weighted() && g.header().minWeight() < 0) {
            throw new IllegalArgumentException("graph '" + g.name() + "' has negative weights; import with --weight-map abs or add:X");
        }
        int s = g.vertex(source, "--source");
        if (hops) {
            return new BreadthFirstSearch(s);
        }
        engineDelta = delta != null ? delta : ShortestPaths.suggestedDelta(g.header());
        System.err.printf("buckets %s wide%n", Double.isInfinite(engineDelta) ? "unbounded (Bellman-Ford's rounds)" : Output.distance(engineDelta));
        return new ShortestPaths(s, engineDelta);
    }

    @Override
    String summarize(PregelRun run, LoadedGraph g) {
        if (!hops) {
            run.summary.put("delta", Double.isInfinite(engineDelta) ? null : engineDelta); // JSON has no infinity: null is unbounded
        }
        return summarize(distances(run), run.summary);
    }

    private String summarize(double[] distance, ObjectNode summary) {
        long reached = 0;
        double farthest = 0;
        for (double d : distance) {
            if (!Double.isInfinite(d)) {
                reached++;
                farthest = Math.max(farthest, d);
            }
        }
        summary.set("source", ResolvedGraph.json(source));
        summary.put("reached", reached);
        summary.put("largestDistance", farthest);
        return String.format("from %s reached %,d of %,d vertices, largest distance %s", source, reached, distance.length,
                Output.distance(farthest));
    }

    @Override
    Verdict verify(PregelRun run, LoadedGraph g) {
        return verify(g, distances(run));
    }

    /** By BFS's verifier with --hops (depths), else by shortest paths'. */
    private Verdict verify(LoadedGraph g, double[] distance) {
        int s = g.vertex(source, "--source");
        if (!hops) {
            return ShortestPaths.verify(g.file(), s, distance, g::label);
        }
        int[] depth = new int[distance.length];
        for (int v = 0; v < depth.length; v++) {
            depth[v] = Double.isInfinite(distance[v]) ? -1 : (int) distance[v];
        }
        return BreadthFirstSearch.verify(g.file(), s, depth, g::label);
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
}

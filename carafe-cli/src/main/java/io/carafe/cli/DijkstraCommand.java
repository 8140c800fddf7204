package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.online.Dijkstra;
import io.carafe.algorithms.pregel.ShortestPaths;
import io.carafe.algorithms.references.Verdict;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

@Command(name = "dijkstra",
        mixinStandardHelpOptions = true,
        header = "Shortest paths from a source (Dijkstra) through the online VertexHandle API.",
        description = {"With --target: prints the distance and the path (original ids). Without: a summary of the",
                "vertices reached; -o writes id<TAB>distance<TAB>predecessor for every vertex (inf and - when",
                "unreachable). Unweighted graphs count hops. Negative weights are refused."})
final class DijkstraCommand extends SearchCommand {
    private Dijkstra.Result last;

    @Override
    String algorithm() {
        return "dijkstra";
    }

    @Override
    String method() {
        return "online";
    }

    @Override
    String[] columns() {
        return new String[] {"distance", "predecessor"};
    }

    @Override
    void setUp(ThreadRun run) {
        // nothing: the online API reads what the search reaches
    }

    @Override
    double search(LoadedGraph g, int source, int target) {
        last = Dijkstra.run(g.graph(), source, target); // stops once the target is settled
        return last.seconds();
    }

    /** The target's distance and path, else how far the search reached. */
    @Override
    void report(PrintWriter out, ObjectNode json, LoadedGraph g, int target) {
        System.err.printf("dijkstra: settled %,d vertices, explored %,d edges in %.3f s (%,.1f M edges/s)%n",
                last.verticesSettled(), last.edgesExplored(), last.seconds(), last.edgesPerSecond() / 1e6);
        json.put("settled", last.verticesSettled()).put("edgesExplored", last.edgesExplored());
        if (target >= 0) {
            double d = last.distance()[target];
            if (Double.isInfinite(d)) {
                json.putNull("distance");
            } else {
                json.put("distance", d);
            }
            int[] path = last.path(target);
            ArrayNode ids = json.putArray("path");
            for (int v : path) {
                ids.add(ResolvedGraph.json(g.label(v)));
            }
            out.printf("distance %s -> %s: %s%n", query.source, query.target, Double.isInfinite(d) ? "unreachable" : Output.distance(d));
            if (path.length > 0) {
                out.printf("path: %s (%d edges)%n", path(g, target), path.length - 1);
            }
        } else {
            long reached = 0;
            double farthest = 0;
            for (double d : last.distance()) {
                if (!Double.isInfinite(d)) {
                    reached++;
                    farthest = Math.max(farthest, d);
                }
            }
            out.printf("reached %,d of %,d vertices from %s; largest distance %s%n", reached, g.graph().vertexCount(), query.source,
                    Output.distance(farthest));
            json.put("reached", reached).put("largestDistance", farthest);
        }
    }

    @Override
    String value(int v) {
        return Output.distance(last.distance()[v]);
    }

    @Override
    int predecessor(int v) {
        return last.predecessor()[v];
    }

    /** Every distance when the search settled every vertex, else the target's alone. */
    @Override
    Verdict verify(LoadedGraph g, int source, int target) {
        return target < 0 ? ShortestPaths.verify(g.file(), source, last.distance(), g::label)
                : ShortestPaths.verifyOne(g.file(), source, target, last.distance()[target], g::label);
    }
}

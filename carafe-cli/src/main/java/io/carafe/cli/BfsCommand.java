package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.carafe.algorithms.online.Bfs;
import io.carafe.algorithms.pregel.BreadthFirstSearch;
import io.carafe.algorithms.references.Verdict;
import io.carafe.algorithms.resident.DirectionOptimizingBfs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;

@Command(name = "bfs",
        mixinStandardHelpOptions = true,
        header = "Breadth-first search from a source: direction-optimizing in this process, or through the online API.",
        description = {"Prints how many vertices each level holds; with --target, its depth and a path. -o writes",
                "id<TAB>depth<TAB>parent for every vertex (inf and - when unreachable).",
                "direction-optimizing (default): the graph and its in-edges read whole into this process, top-down or",
                "bottom-up level by level with -w threads (GAP's bfs). online: one thread through VertexHandle and",
                "EdgeIterator, reading only the records and edges the search reaches. Both run in this process; BFS on the",
                "Pregel engine, which scales past one machine, is carafe sssp --hops --algorithm pregel."})
final class BfsCommand extends SearchCommand {
    @Option(names = "--algorithm", paramLabel = "direction-optimizing|online", defaultValue = "direction-optimizing",
            description = "direction-optimizing: -w threads over the graph read into this process; online: the VertexHandle API"
                    + " (default: ${DEFAULT-VALUE})")
    String method;

    @Option(names = {"-w", "--workers"}, paramLabel = "THREADS", defaultValue = "2", description = "threads of the direction-optimizing search (default: ${DEFAULT-VALUE})")
    int threads;

    private DirectionOptimizingBfs directionOptimizing; // null: the online search
    private Bfs.Result last;

    @Override
    String algorithm() {
        return "bfs";
    }

    @Override
    String method() {
        boolean online = switch (method) {
            case "online" -> true;
            case "direction-optimizing" -> false;
            default -> throw new IllegalArgumentException("--algorithm must be direction-optimizing or online, was " + method);
        };
        if (online && spec.commandLine().getParseResult().hasMatchedOption("-w")) {
            throw new IllegalArgumentException("--workers sets the threads of the direction-optimizing search; the online one runs on one");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("--workers must be >= 1, was " + threads);
        }
        return method;
    }

    @Override
    int threads() {
        return method.equals("online") ? 1 : threads;
    }

    @Override
    String[] columns() {
        return new String[] {"depth", "parent"};
    }

    @Override
    void setUp(ThreadRun run) {
        if (!method.equals("online")) {
            directionOptimizing = new DirectionOptimizingBfs(run.resident(), run.threads); // reads the in-edges too
        }
    }

    @Override
    double search(LoadedGraph g, int source, int target) {
        last = directionOptimizing == null ? Bfs.run(g.graph(), source) : directionOptimizing.run(source); // every level, target or not
        return last.seconds();
    }

    /** How many vertices each level holds, and the target's depth and path. */
    @Override
    void report(PrintWriter out, ObjectNode json, LoadedGraph g, int target) {
        System.err.printf("bfs: reached %,d vertices, explored %,d edges in %.3f s%s%n", last.verticesReached(), last.edgesExplored(),
                last.seconds(), directionOptimizing == null ? "" : " (levels top-down T or bottom-up B: " + directionOptimizing.directions() + ")");
        if (directionOptimizing != null) {
            json.put("directions", directionOptimizing.directions());
        }
        int[] depth = last.depth();
        int maxDepth = 0;
        for (int d : depth) {
            maxDepth = Math.max(maxDepth, d);
        }
        long[] perLevel = new long[maxDepth + 1];
        for (int d : depth) {
            if (d >= 0) {
                perLevel[d]++;
            }
        }
        // levels 0 (the source) to maxDepth: the lines below, one per level
        out.printf("reached %,d of %,d vertices from %s in %s (depths 0-%d)%n", last.verticesReached(), depth.length, query.source,
                Output.count(maxDepth + 1, "level"), maxDepth);
        json.put("reached", last.verticesReached()).put("edgesExplored", last.edgesExplored()).put("maxDepth", maxDepth);
        ArrayNode levels = json.putArray("verticesPerLevel");
        for (int level = 0; level <= maxDepth; level++) {
            out.printf("  level %d: %,d%n", level, perLevel[level]);
            levels.add(perLevel[level]);
        }
        if (target >= 0) {
            if (depth[target] < 0) {
                out.printf("%s is unreachable from %s%n", query.target, query.source);
            } else {
                out.printf("depth of %s: %d%npath: %s%n", query.target, depth[target], path(g, target));
                json.put("targetDepth", depth[target]);
            }
        }
    }

    @Override
    String value(int v) {
        return last.depth()[v] < 0 ? "inf" : Integer.toString(last.depth()[v]);
    }

    @Override
    int predecessor(int v) {
        return last.parent()[v];
    }

    @Override
    Verdict verify(LoadedGraph g, int source, int target) {
        return BreadthFirstSearch.verify(g.file(), source, last.depth(), g::label);
    }
}

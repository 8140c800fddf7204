package io.carafe.algorithms.pregel;

import io.carafe.pregel.VertexProgram;

import java.util.HashMap;
import java.util.Map;

/** Builds a vertex program from its {@link VertexProgram#spec()}: how a worker in another process learns what to run. */
public final class Programs {
    private Programs() {
    }

    public static VertexProgram fromSpec(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("this job's program has no spec, so it runs only as threads of the process that started it");
        }
        String[] words = spec.trim().split("\\s+");
        Map<String, String> args = new HashMap<>();
        for (int i = 1; i < words.length; i++) {
            int eq = words[i].indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("bad program spec '" + spec + "': '" + words[i] + "' is not key=value");
            }
            args.put(words[i].substring(0, eq), words[i].substring(eq + 1));
        }
        try {
            return switch (words[0]) {
                case "pagerank" -> new PageRank(Double.parseDouble(need(args, "damping", spec)), Integer.parseInt(need(args, "iterations", spec)),
                        Double.parseDouble(need(args, "tolerance", spec)), need(args, "dangling", spec).equals("drop"));
                case "sssp" -> new ShortestPaths(Integer.parseInt(need(args, "source", spec)),
                        Double.parseDouble(args.getOrDefault("delta", "Infinity")));
                case "bfs" -> new BreadthFirstSearch(Integer.parseInt(need(args, "source", spec)));
                case "wcc" -> new ConnectedComponents();
                case "wcc-afforest" -> new AfforestComponents();
                case "cdlp" -> new LabelPropagation(Integer.parseInt(need(args, "iterations", spec)));
                case "lcc" -> new Triangles(true);
                case "triangles" -> new Triangles(false);
                case "scc" -> new StronglyConnectedComponents();
                case "jar" -> UserProgram.fromSpec(args);
                default -> throw new IllegalArgumentException("unknown vertex program '" + words[0] + "' in spec '" + spec + "'");
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad number in program spec '" + spec + "'", e);
        }
    }

    private static String need(Map<String, String> args, String key, String spec) {
        String value = args.get(key);
        if (value == null) {
            throw new IllegalArgumentException("program spec '" + spec + "' lacks " + key);
        }
        return value;
    }
}

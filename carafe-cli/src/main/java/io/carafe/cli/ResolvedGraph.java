package io.carafe.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.carafe.datasets.GraphResolver;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import io.carafe.importer.VertexNames;

import java.io.PrintStream;

/**
 * A command's graph as a file: the dataset or path resolved, imported into the graph cache
 * if it never was, and the cache file mapped (which reads nothing). What a command needs
 * before anything is loaded into RStore: the header, and original ids.
 */
record ResolvedGraph(String name, GraphFile file, double importSeconds, VertexNames names) implements AutoCloseable {

    static ResolvedGraph resolve(GraphOptions options, PrintStream err) {
        long start = System.nanoTime();
        GraphResolver.Resolved resolved = GraphResolver.resolve(options.graph, options.importOptions(), options.cacheDir(), err);
        double importSeconds = (System.nanoTime() - start) / 1e9;
        String summary = resolved.imported().report().summary();
        err.print(summary);
        if (!summary.endsWith("\n")) {
            err.println();
        }
        GraphFile file = resolved.imported().file();
        return new ResolvedGraph(resolved.name(), file, importSeconds, VertexNames.read(file.path()));
    }

    GraphHeader header() {
        return file.header();
    }

    /**
     * The internal id of a vertex given on the command line: a name in a graph of names,
     * else an original id.
     */
    int vertex(String given, String option) {
        long originalId;
        if (names != null) {
            originalId = names.find(given);
            if (originalId < 0) {
                throw new IllegalArgumentException(option + " " + given + " is not a vertex of graph '" + name + "' (its vertices are named)");
            }
        } else {
            try {
                originalId = Long.parseLong(given);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " " + given + " is not a vertex id of graph '" + name + "' (a whole number; it was"
                        + " imported with integer ids)");
            }
        }
        return vertex(originalId, option);
    }

    /** The internal id of an original id given for {@code option}. */
    int vertex(long originalId, String option) {
        int id = file.vertexId(originalId);
        if (id < 0) {
            throw new IllegalArgumentException(option + " " + originalId + " is not a vertex of graph '" + name + "'");
        }
        return id;
    }

    long originalId(int vertex) {
        return VertexLayout.originalId(file.vertices(), vertex);
    }

    /** How outputs show a vertex: its name, or its original id. */
    String label(int vertex) {
        return labelOf(originalId(vertex));
    }

    /** How outputs show an original id (a label or component that is a vertex's id): its vertex's name, or the id. */
    String labelOf(long originalId) {
        return names != null ? names.name(originalId) : Long.toString(originalId);
    }

    /** What JSON holds for a vertex given on the command line: the number of a graph of numbers, else the name. */
    static JsonNode json(String given) {
        try {
            return LongNode.valueOf(Long.parseLong(given));
        } catch (NumberFormatException e) {
            return TextNode.valueOf(given);
        }
    }

    @Override
    public void close() {
        file.close();
    }
}

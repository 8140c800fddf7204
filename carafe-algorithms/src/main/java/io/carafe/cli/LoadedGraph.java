package io.carafe.cli;

import io.carafe.datasets.GraphResolver;
import io.carafe.graph.CarafeGraph;
import io.carafe.importer.GraphFile;
import io.rstore.RStore;

import java.io.PrintStream;

/**
 * A command's graph: resolved (file or dataset), imported or taken from the cache, and
 * loaded into a running RStore cluster, with the time each step took.
 */
record LoadedGraph(String name, GraphFile file, CarafeGraph graph, double importSeconds, double loadSeconds) implements AutoCloseable {

    static LoadedGraph load(RStore rstore, GraphOptions options, PrintStream err) {
        long start = System.nanoTime();
        GraphResolver.Resolved resolved = GraphResolver.resolve(options.graph, options.importOptions(), options.cacheDir(), err);
        double importSeconds = (System.nanoTime() - start) / 1e9;
        err.print(resolved.imported().report().summary());
        if (!resolved.imported().report().summary().endsWith("\n")) {
            err.println();
        }
        long loadStart = System.nanoTime();
        CarafeGraph graph;
        try {
            graph = CarafeGraph.create(rstore, resolved.name(), resolved.imported().file());
        } catch (RuntimeException e) {
            resolved.imported().file().close();
            throw e;
        }
        double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
        err.printf("loaded %s into RStore in %.2f s (%s, %,d vertices, %,d edges)%n", resolved.name(), loadSeconds,
                graph.isWeighted() ? "weighted" : "unweighted", graph.vertexCount(), graph.edgeCount());
        return new LoadedGraph(resolved.name(), resolved.imported().file(), graph, importSeconds, loadSeconds);
    }

    /** The internal id of an original id given on the command line. */
    int vertex(long originalId, String option) {
        int id = graph.vertexId(originalId);
        if (id < 0) {
            throw new IllegalArgumentException(option + " " + originalId + " is not a vertex of graph '" + name + "'");
        }
        return id;
    }

    long originalId(int vertex) {
        return io.carafe.graph.VertexLayout.originalId(file.vertices(), vertex);
    }

    @Override
    public void close() {
        graph.close();
        file.close();
    }
}

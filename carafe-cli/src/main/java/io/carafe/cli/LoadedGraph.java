package io.carafe.cli;

import io.carafe.datasets.GraphResolver;
import io.carafe.graph.CarafeGraph;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.GraphStoreException;
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
        boolean reused;
        try {
            reused = !options.replace && reusable(rstore, resolved.name(), resolved.imported().file());
            if (options.replace && CarafeGraph.exists(rstore, resolved.name())) {
                CarafeGraph.delete(rstore, resolved.name());
                err.printf("replacing graph %s in the cluster%n", resolved.name());
            }
            graph = reused ? CarafeGraph.open(rstore, resolved.name()) : CarafeGraph.create(rstore, resolved.name(), resolved.imported().file(), err);
        } catch (RuntimeException e) {
            resolved.imported().file().close();
            throw e;
        }
        double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
        err.printf("%s %s %s RStore in %.2f s (%s, %,d vertices, %,d edges)%n", reused ? "using" : "loaded", resolved.name(),
                reused ? "already in" : "into", loadSeconds, graph.isWeighted() ? "weighted" : "unweighted", graph.vertexCount(), graph.edgeCount());
        return new LoadedGraph(resolved.name(), resolved.imported().file(), graph, importSeconds, loadSeconds);
    }

    /**
     * Whether the cluster already holds this very graph under the name (the same source and
     * import options, recorded in its header): then it is used as it is. A different graph
     * of that name is an error naming the ways out.
     */
    private static boolean reusable(RStore rstore, String name, GraphFile file) {
        if (!CarafeGraph.exists(rstore, name)) {
            return false;
        }
        GraphHeader there = CarafeGraph.header(rstore, name);
        if (there.sameGraphAs(file.header())) {
            return true;
        }
        throw new GraphStoreException("the cluster holds a different graph named '" + name + "' (" + there.vertexCount() + " vertices, "
                + there.edgeCount() + " edges, from another source or with other import options); pass --replace to replace it, or drop it"
                + " first: carafe graphs drop " + name + " --cluster URI");
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

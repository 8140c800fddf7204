package io.carafe.cli;

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
record LoadedGraph(ResolvedGraph resolved, CarafeGraph graph, double loadSeconds) implements AutoCloseable {

    static LoadedGraph load(RStore rstore, GraphOptions options, PrintStream err) {
        ResolvedGraph resolved = ResolvedGraph.resolve(options, err);
        long loadStart = System.nanoTime();
        CarafeGraph graph;
        boolean reused;
        try {
            reused = !options.replace && reusable(rstore, resolved.name(), resolved.file());
            if (options.replace && CarafeGraph.exists(rstore, resolved.name())) {
                CarafeGraph.delete(rstore, resolved.name());
                err.printf("replacing graph %s in the cluster%n", resolved.name());
            }
            graph = reused ? CarafeGraph.open(rstore, resolved.name()) : CarafeGraph.create(rstore, resolved.name(), resolved.file(), err);
        } catch (RuntimeException e) {
            resolved.close();
            throw e;
        }
        double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
        err.printf("%s %s %s RStore in %.2f s (%s, %,d vertices, %,d edges)%n", reused ? "using" : "loaded", resolved.name(),
                reused ? "already in" : "into", loadSeconds, graph.isWeighted() ? "weighted" : "unweighted", graph.vertexCount(), graph.edgeCount());
        return new LoadedGraph(resolved, graph, loadSeconds);
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

    String name() {
        return resolved.name();
    }

    GraphFile file() {
        return resolved.file();
    }

    double importSeconds() {
        return resolved.importSeconds();
    }

    /** The internal id of a vertex given on the command line (a name, in a graph of names). */
    int vertex(String given, String option) {
        return resolved.vertex(given, option);
    }

    long originalId(int vertex) {
        return resolved.originalId(vertex);
    }

    /** How outputs show a vertex: its name, or its original id. */
    String label(int vertex) {
        return resolved.label(vertex);
    }

    /** How outputs show an original id that stands for a vertex (a label, a component): its name, or the id. */
    String labelOf(long originalId) {
        return resolved.labelOf(originalId);
    }

    @Override
    public void close() {
        graph.close();
        resolved.close();
    }
}

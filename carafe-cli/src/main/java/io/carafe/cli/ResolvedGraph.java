package io.carafe.cli;

import io.carafe.datasets.GraphResolver;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;

/**
 * A command's graph as a file: the dataset or path resolved, imported into the graph cache
 * if it never was, and the cache file mapped (which reads nothing). What a command needs
 * before anything is loaded into RStore: the header, and original ids.
 */
record ResolvedGraph(String name, GraphFile file, double importSeconds) implements AutoCloseable {

    static ResolvedGraph resolve(GraphOptions options, PrintStream err) {
        long start = System.nanoTime();
        GraphResolver.Resolved resolved = GraphResolver.resolve(options.graph, options.importOptions(), options.cacheDir(), err);
        double importSeconds = (System.nanoTime() - start) / 1e9;
        String summary = resolved.imported().report().summary();
        err.print(summary);
        if (!summary.endsWith("\n")) {
            err.println();
        }
        return new ResolvedGraph(resolved.name(), resolved.imported().file(), importSeconds);
    }

    GraphHeader header() {
        return file.header();
    }

    /** The internal id of an original id given on the command line: the vertex records are in original id order. */
    int vertex(long originalId, String option) {
        MemorySegment records = file.vertices();
        int lo = 0;
        int hi = (int) header().vertexCount() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long found = VertexLayout.originalId(records, mid);
            if (found < originalId) {
                lo = mid + 1;
            } else if (found > originalId) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        throw new IllegalArgumentException(option + " " + originalId + " is not a vertex of graph '" + name + "'");
    }

    long originalId(int vertex) {
        return VertexLayout.originalId(file.vertices(), vertex);
    }

    @Override
    public void close() {
        file.close();
    }
}

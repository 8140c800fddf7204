package io.carafe.graph;

import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The in-edges of vertices {@code [from, to)}, read from RStore into arrays: vertex
 * {@code from + i}'s sources are {@code sources[start[i] .. start[i + 1])}, ascending, with
 * their {@code weights} (null on an unweighted graph or when not asked for). A directed
 * graph's come from the in-edge sections built at import; an undirected graph's are its
 * out-edges. Reads a window of 4 MiB at a time, all in flight: the control path of a job
 * or kernel that needs what points at its vertices, with no scan of anyone else's edges.
 */
public record InEdgeLists(int from, int[] start, int[] sources, double[] weights) {
    private static final long WINDOW_BYTES = 4L << 20;

    public static InEdgeLists read(RStore rstore, String graph, int from, int to, boolean withWeights) {
        GraphHeader header = CarafeGraph.readHeader(rstore, graph);
        if (from < 0 || to > header.vertexCount() || from > to) {
            throw new IndexOutOfBoundsException("vertex range [" + from + ", " + to + ") is not within 0.." + header.vertexCount());
        }
        int size = to - from;
        long[] firsts = new long[size + 1]; // absolute index of each vertex's first in-edge, and the end
        if (size > 0 && header.directed()) {
            try (Mapping offsets = map(rstore, graph, header, GraphHeader.Section.IN_OFFSETS, from, size + 1L, Long.BYTES)) {
                readAll(offsets);
                MemorySegment.copy(offsets.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, firsts, 0, size + 1);
            }
        } else if (size > 0) {
            try (Mapping records = map(rstore, graph, header, GraphHeader.Section.VERTICES, from, size, VertexLayout.BYTES)) {
                readAll(records);
                MemorySegment r = records.segment();
                for (int i = 0; i < size; i++) {
                    firsts[i] = VertexLayout.firstEdge(r, i);
                }
                firsts[size] = firsts[size - 1] + VertexLayout.degree(r, size - 1);
            }
        }
        long first = firsts[0];
        long count = firsts[size] - first;
        if (count > Integer.MAX_VALUE - 8) {
            throw new GraphStoreException("vertices [" + from + ", " + to + ") of graph '" + graph + "' have " + count
                    + " in-edges, more than one array holds (2^31): split them among more partitions (workers)");
        }
        int[] start = new int[size + 1];
        for (int i = 0; i <= size; i++) {
            start[i] = (int) (firsts[i] - first);
        }
        int[] sources = new int[(int) count];
        boolean directed = header.directed();
        copyInts(rstore, graph, header, directed ? GraphHeader.Section.IN_SOURCES : GraphHeader.Section.EDGES, first, sources);
        double[] weights = null;
        if (withWeights && header.weighted()) {
            weights = new double[(int) count];
            copyDoubles(rstore, graph, header, directed ? GraphHeader.Section.IN_WEIGHTS : GraphHeader.Section.WEIGHTS, first, weights);
        }
        return new InEdgeLists(from, start, sources, weights);
    }

    /** In-degree of vertex {@code from + i}. */
    public int degree(int i) {
        return start[i + 1] - start[i];
    }

    /** Index of vertex {@code from + i}'s first in-edge. */
    public int first(int i) {
        return start[i];
    }

    public int source(int k) {
        return sources[k];
    }

    /** Weight of in-edge {@code k}; 1 without weights. */
    public double weight(int k) {
        return weights == null ? 1.0 : weights[k];
    }

    private static void copyInts(RStore rstore, String graph, GraphHeader h, GraphHeader.Section s, long first, int[] into) {
        if (into.length > 0) {
            try (Mapping m = map(rstore, graph, h, s, first, into.length, Integer.BYTES)) {
                readAll(m);
                MemorySegment.copy(m.segment(), ValueLayout.JAVA_INT_UNALIGNED, 0, into, 0, into.length);
            }
        }
    }

    private static void copyDoubles(RStore rstore, String graph, GraphHeader h, GraphHeader.Section s, long first, double[] into) {
        if (into.length > 0) {
            try (Mapping m = map(rstore, graph, h, s, first, into.length, Double.BYTES)) {
                readAll(m);
                MemorySegment.copy(m.segment(), ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, into, 0, into.length);
            }
        }
    }

    /** Maps elements {@code [first, first + count)} of a section (count > 0). */
    private static Mapping map(RStore rstore, String graph, GraphHeader h, GraphHeader.Section s, long first, long count, long elementBytes) {
        return rstore.joinNamespace(CarafeGraph.namespace(graph, s.part())).raddress(h.at(s))
                .map(first * elementBytes, count * elementBytes, MapFlags.READ_ONLY);
    }

    private static void readAll(Mapping m) {
        Batch batch = new Batch();
        for (long at = 0; at < m.length(); at += WINDOW_BYTES) {
            batch.read(m, at, Math.min(WINDOW_BYTES, m.length() - at));
        }
        batch.join();
    }
}

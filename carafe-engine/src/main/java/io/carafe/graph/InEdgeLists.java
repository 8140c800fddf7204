package io.carafe.graph;

import io.rstore.RStore;

import java.lang.foreign.MemorySegment;

/**
 * The in-edges of vertices {@code [from, to)}, read from RStore into arrays: vertex
 * {@code from + i}'s sources are {@code sources[start[i] .. start[i + 1])}, ascending, with
 * their {@code weights} (null on an unweighted graph or when not asked for; floats or
 * doubles as the graph stores them). A directed
 * graph's come from the in-edge sections built at import; an undirected graph's are its
 * out-edges. Maps {@link CarafeGraph#PIECE_BYTES} at a time and reads it in 4 MiB windows, all in flight: the
 * control path of a job or kernel that needs what points at its vertices, with no scan of
 * anyone else's edges and no local memory beyond the arrays and one piece.
 */
public record InEdgeLists(int from, int[] start, int[] sources, EdgeWeights weights) {
    public static InEdgeLists read(RStore rstore, String graph, int from, int to, boolean withWeights) {
        return read(rstore, graph, from, to, withWeights, CarafeGraph.PIECE_BYTES);
    }

    /** As {@link #read(RStore, String, int, int, boolean)}, mapping {@code pieceBytes} at a time (tests use small pieces). */
    static InEdgeLists read(RStore rstore, String graph, int from, int to, boolean withWeights, long pieceBytes) {
        GraphHeader header = CarafeGraph.readHeader(rstore, graph);
        if (from < 0 || to > header.vertexCount() || from > to) {
            throw new IndexOutOfBoundsException("vertex range [" + from + ", " + to + ") is not within 0.." + header.vertexCount());
        }
        int size = to - from;
        boolean directed = header.directed();
        long[] firsts = new long[size + 1]; // absolute index of each vertex's first in-edge, and the end
        if (size > 0 && directed) {
            CarafeGraph.copySection(rstore, graph, header, GraphHeader.Section.IN_OFFSETS, from, Long.BYTES, MemorySegment.ofArray(firsts), pieceBytes);
        } else if (size > 0) { // an undirected graph's out-edges: the first edge of `from`, then its degrees
            long[] record = new long[(int) (VertexLayout.BYTES / Long.BYTES)];
            CarafeGraph.copySection(rstore, graph, header, GraphHeader.Section.VERTICES, from, VertexLayout.BYTES, MemorySegment.ofArray(record), pieceBytes);
            firsts[0] = VertexLayout.firstEdge(MemorySegment.ofArray(record), 0);
            int[] degrees = CarafeGraph.outDegrees(rstore, graph, from, to);
            for (int i = 0; i < size; i++) {
                firsts[i + 1] = firsts[i] + degrees[i];
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
        CarafeGraph.copySection(rstore, graph, header, directed ? GraphHeader.Section.IN_SOURCES : GraphHeader.Section.EDGES, first, Integer.BYTES,
                MemorySegment.ofArray(sources), pieceBytes);
        EdgeWeights weights = null;
        if (withWeights && header.weighted()) {
            weights = EdgeWeights.allocate((int) count, header.weightBytes());
            CarafeGraph.copySection(rstore, graph, header, directed ? GraphHeader.Section.IN_WEIGHTS : GraphHeader.Section.WEIGHTS, first,
                    header.weightBytes(), weights.memory(), pieceBytes);
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
        return weights == null ? 1.0 : weights.get(k);
    }
}

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
        // each vertex's first in-edge, counted from the range's first; read a piece at a time (a long[] of the
        // range's offsets was the largest array of a gathering job's setup that nobody kept)
        int[] start = new int[size + 1];
        long first = 0;
        if (size > 0 && directed) {
            long[] piece = new long[(int) Math.min(size + 1, pieceBytes / Long.BYTES)];
            for (int i = 0; i <= size; i += piece.length) {
                int n = Math.min(piece.length, size + 1 - i);
                CarafeGraph.copySection(rstore, graph, header, GraphHeader.Section.IN_OFFSETS, from + i, Long.BYTES,
                        MemorySegment.ofArray(piece).asSlice(0, (long) n * Long.BYTES), pieceBytes);
                if (i == 0) {
                    first = piece[0];
                }
                for (int k = 0; k < n; k++) {
                    start[i + k] = toIndex(piece[k] - first, from, to, graph);
                }
            }
        } else if (size > 0) { // an undirected graph's out-edges: the first edge of `from`, then its degrees
            long[] record = new long[(int) (VertexLayout.BYTES / Long.BYTES)];
            CarafeGraph.copySection(rstore, graph, header, GraphHeader.Section.VERTICES, from, VertexLayout.BYTES, MemorySegment.ofArray(record), pieceBytes);
            first = VertexLayout.firstEdge(MemorySegment.ofArray(record), 0);
            int[] degrees = CarafeGraph.outDegrees(rstore, graph, from, to);
            long at = 0;
            for (int i = 0; i < size; i++) {
                at += degrees[i];
                start[i + 1] = toIndex(at, from, to, graph);
            }
        }
        long count = start[size];
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

    /** An in-edge's index within the range, which one array must hold. */
    private static int toIndex(long edges, int from, int to, String graph) {
        if (edges > Integer.MAX_VALUE - 8) {
            throw new GraphStoreException("vertices [" + from + ", " + to + ") of graph '" + graph + "' have " + edges
                    + " in-edges or more, more than one array holds (2^31): split them among more partitions (workers)");
        }
        return (int) edges;
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

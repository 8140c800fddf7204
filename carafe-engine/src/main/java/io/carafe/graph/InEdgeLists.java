package io.carafe.graph;

import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.lang.foreign.MemorySegment;

/**
 * The in-edges of vertices {@code [from, to)}, read from RStore into arrays: vertex
 * {@code from + i}'s sources are {@code sources[start[i] .. start[i + 1])}, ascending, with
 * their {@code weights} (null on an unweighted graph or when not asked for). A directed
 * graph's come from the in-edge sections built at import; an undirected graph's are its
 * out-edges. Maps 64 MiB at a time and reads it in 4 MiB windows, all in flight: the
 * control path of a job or kernel that needs what points at its vertices, with no scan of
 * anyone else's edges and no local memory beyond the arrays and one piece.
 */
public record InEdgeLists(int from, int[] start, int[] sources, double[] weights) {
    /** Bytes mapped at a time: the local memory a read takes, whatever the graph's size; its 4 MiB reads are all in flight. */
    static final long PIECE_BYTES = 64L << 20;
    private static final long WINDOW_BYTES = 4L << 20;

    public static InEdgeLists read(RStore rstore, String graph, int from, int to, boolean withWeights) {
        return read(rstore, graph, from, to, withWeights, PIECE_BYTES);
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
            copy(rstore, graph, header, GraphHeader.Section.IN_OFFSETS, from, Long.BYTES, MemorySegment.ofArray(firsts), pieceBytes);
        } else if (size > 0) { // an undirected graph's out-edges: the first edge of `from`, then its degrees
            long[] record = new long[(int) (VertexLayout.BYTES / Long.BYTES)];
            copy(rstore, graph, header, GraphHeader.Section.VERTICES, from, VertexLayout.BYTES, MemorySegment.ofArray(record), pieceBytes);
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
        copy(rstore, graph, header, directed ? GraphHeader.Section.IN_SOURCES : GraphHeader.Section.EDGES, first, Integer.BYTES,
                MemorySegment.ofArray(sources), pieceBytes);
        double[] weights = null;
        if (withWeights && header.weighted()) {
            weights = new double[(int) count];
            copy(rstore, graph, header, directed ? GraphHeader.Section.IN_WEIGHTS : GraphHeader.Section.WEIGHTS, first, Double.BYTES,
                    MemorySegment.ofArray(weights), pieceBytes);
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

    /**
     * Copies the elements of a section from element {@code first} on into {@code into} (a
     * segment over an array; the graph's little-endian values in this machine's order), a
     * piece of at most {@code pieceBytes} mapped at a time.
     */
    static void copy(RStore rstore, String graph, GraphHeader h, GraphHeader.Section s, long first, long elementBytes, MemorySegment into,
                     long pieceBytes) {
        if (into.byteSize() == 0) {
            return;
        }
        RAddress segment = rstore.joinNamespace(CarafeGraph.namespace(graph, s.part())).raddress(h.at(s));
        long at = first * elementBytes;
        for (long done = 0; done < into.byteSize(); done += pieceBytes) {
            long length = Math.min(pieceBytes, into.byteSize() - done);
            try (Mapping m = segment.map(at + done, length, MapFlags.READ_ONLY)) {
                Batch batch = new Batch();
                for (long w = 0; w < length; w += WINDOW_BYTES) {
                    batch.read(m, w, Math.min(WINDOW_BYTES, length - w));
                }
                batch.join();
                MemorySegment.copy(m.segment(), 0, into, done, length);
            }
        }
    }
}

package io.carafe.graph;

import io.rstore.RStore;

import java.lang.foreign.MemorySegment;

/**
 * Where every vertex's out-edges and in-edges start in a graph's edge arrays: n + 1
 * offsets each (the last is the end), read once from RStore (the vertex records, the
 * stored in-offsets) and shared by a process's workers. The in-offsets of an undirected
 * graph are its out-offsets.
 */
public final class EdgeOffsets {
    private final long[] outFirst;
    private final long[] inFirst;
    private final boolean directed;

    private EdgeOffsets(long[] outFirst, long[] inFirst, boolean directed) {
        this.outFirst = outFirst;
        this.inFirst = inFirst;
        this.directed = directed;
    }

    /** Reads graph {@code name}'s offsets: 16 bytes a vertex (8 on an undirected graph). */
    public static EdgeOffsets read(RStore rstore, String name) {
        GraphHeader header = CarafeGraph.readHeader(rstore, name);
        int n = Math.toIntExact(header.vertexCount());
        long[] out = new long[n + 1];
        int[] degrees = CarafeGraph.outDegrees(rstore, name, 0, n);
        for (int v = 0; v < n; v++) {
            out[v + 1] = out[v] + degrees[v];
        }
        if (out[n] != header.edgeCount()) {
            throw new GraphStoreException("graph '" + name + "' has " + header.edgeCount() + " edges, but its vertices' degrees add up to " + out[n]
                    + ": it is damaged; " + CarafeGraph.loadAgain(name));
        }
        long[] in = out;
        if (header.directed()) {
            in = new long[n + 1];
            CarafeGraph.copySection(rstore, name, header, GraphHeader.Section.IN_OFFSETS, 0, Long.BYTES, MemorySegment.ofArray(in), CarafeGraph.PIECE_BYTES);
        }
        return new EdgeOffsets(out, in, header.directed());
    }

    public boolean directed() {
        return directed;
    }

    /** Index of vertex {@code v}'s first out-edge; {@code v} = n gives the end. */
    public long outFirst(int v) {
        return outFirst[v];
    }

    /** Index of vertex {@code v}'s first in-edge (its out-edge on an undirected graph); {@code v} = n gives the end. */
    public long inFirst(int v) {
        return inFirst[v];
    }
}

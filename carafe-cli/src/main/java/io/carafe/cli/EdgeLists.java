package io.carafe.cli;

import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;

import java.io.IOException;
import java.io.Writer;

/** A cached graph written back as a text edge list: {@code source<TAB>target[<TAB>weight]} per edge, original ids. */
final class EdgeLists {
    private EdgeLists() {
    }

    /** Vertices an edge list can show: those with an edge (isolated ones have no line). */
    static long verticesWithEdges(GraphFile g) {
        long n = g.header().vertexCount();
        boolean[] present = new boolean[(int) n];
        for (long v = 0; v < n; v++) {
            if (VertexLayout.degree(g.vertices(), v) > 0) {
                present[(int) v] = true;
            }
        }
        for (long e = 0; e < g.header().edgeCount(); e++) {
            present[EdgeLayout.target(g.edges(), e)] = true;
        }
        long shown = 0;
        for (boolean p : present) {
            shown += p ? 1 : 0;
        }
        return shown;
    }

    /**
     * Every stored edge, one line each (an undirected graph's edges both ways). With
     * {@code integerWeights} a third column holds the weight, which must be a whole number
     * (1 on an unweighted graph): gapbs reads weights as 32-bit integers.
     */
    static void write(GraphFile g, Writer w, boolean integerWeights) throws IOException {
        long n = g.header().vertexCount();
        for (long v = 0; v < n; v++) {
            String source = Long.toString(VertexLayout.originalId(g.vertices(), v));
            long first = VertexLayout.firstEdge(g.vertices(), v);
            for (long e = first; e < first + VertexLayout.degree(g.vertices(), v); e++) {
                w.write(source);
                w.write('\t');
                w.write(Long.toString(VertexLayout.originalId(g.vertices(), EdgeLayout.target(g.edges(), e))));
                if (integerWeights) {
                    double weight = g.weights() == null ? 1 : g.header().weight(g.weights(), e);
                    if (weight != Math.rint(weight) || weight < 0 || weight > Integer.MAX_VALUE) {
                        throw new IllegalArgumentException("edge " + source + " -> " + VertexLayout.originalId(g.vertices(), EdgeLayout.target(g.edges(), e))
                                + " weighs " + weight + ": gapbs takes whole, non-negative 32-bit weights (use --weights random for a comparison)");
                    }
                    w.write('\t');
                    w.write(Long.toString((long) weight));
                }
                w.write('\n');
            }
        }
    }
}

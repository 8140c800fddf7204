package io.carafe.algorithms.online;

import io.carafe.graph.EdgeLayout;

import java.lang.foreign.MemorySegment;

/**
 * One direction of a graph resident in this process, as compressed sparse rows: vertex
 * v's neighbours are entries {@code [first(v), end(v))} of {@code targets}, which is native
 * memory either way (the graph's own mapping out, a built array in), so the kernels' loops
 * see one kind of segment.
 */
record Adjacency(long[] start, MemorySegment targets) {
    long first(int v) {
        return start[v];
    }

    long end(int v) {
        return start[v + 1];
    }

    int degree(int v) {
        return (int) (start[v + 1] - start[v]);
    }

    int target(long edge) {
        return EdgeLayout.target(targets, edge);
    }

    long edges() {
        return start[start.length - 1];
    }
}

package io.carafe.algorithms.resident;

/**
 * One direction of a graph resident in this process, as compressed sparse rows: vertex
 * v's neighbours are {@code targets[start[v] .. start[v + 1])}. Plain int arrays: the
 * kernels' loops over them compile to bare loads (reading the same edges through a
 * MemorySegment made Δ-stepping slower: docs/measure/notebook.md).
 */
record Adjacency(int[] start, int[] targets) {
    int degree(int v) {
        return start[v + 1] - start[v];
    }

    int edges() {
        return start[start.length - 1];
    }
}

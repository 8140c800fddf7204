package io.carafe.algorithms.online;

import java.util.Arrays;

/**
 * A binary min-heap of vertex ids keyed by double, with decrease-key: the position of
 * every vertex is kept, so nothing is boxed or allocated per operation.
 */
final class MinHeap {
    private final int[] heap;
    private final double[] key;
    private final int[] position; // -1: not in the heap
    private int size;

    MinHeap(int vertices) {
        heap = new int[vertices];
        key = new double[vertices];
        position = new int[vertices];
        Arrays.fill(position, -1);
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Inserts {@code v} or lowers its key. */
    void push(int v, double k) {
        int at = position[v];
        if (at < 0) {
            at = size++;
            heap[at] = v;
            position[v] = at;
        } else if (k >= key[v]) {
            return;
        }
        key[v] = k;
        up(at);
    }

    int pop() {
        int top = heap[0];
        position[top] = -1;
        size--;
        if (size > 0) {
            heap[0] = heap[size];
            position[heap[0]] = 0;
            down(0);
        }
        return top;
    }

    private void up(int at) {
        int v = heap[at];
        double k = key[v];
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            int p = heap[parent];
            if (key[p] <= k) {
                break;
            }
            heap[at] = p;
            position[p] = at;
            at = parent;
        }
        heap[at] = v;
        position[v] = at;
    }

    private void down(int at) {
        int v = heap[at];
        double k = key[v];
        while (true) {
            int child = 2 * at + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && key[heap[child + 1]] < key[heap[child]]) {
                child++;
            }
            int c = heap[child];
            if (key[c] >= k) {
                break;
            }
            heap[at] = c;
            position[c] = at;
            at = child;
        }
        heap[at] = v;
        position[v] = at;
    }
}

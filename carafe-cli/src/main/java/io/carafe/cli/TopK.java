package io.carafe.cli;

/** The k largest values' indices, best first: a k-element min-heap over primitives. */
final class TopK {
    private TopK() {
    }

    static int[] largest(double[] values, int k) {
        int size = Math.min(k, values.length);
        int[] heap = new int[size];
        int filled = 0;
        for (int v = 0; v < values.length; v++) {
            if (filled < size) {
                heap[filled++] = v;
                up(heap, values, filled - 1);
            } else if (size > 0 && better(values, v, heap[0])) {
                heap[0] = v;
                down(heap, values, size);
            }
        }
        int[] sorted = new int[filled];
        for (int i = filled - 1; i >= 0; i--) { // pop the smallest each time: fill from the back
            sorted[i] = heap[0];
            heap[0] = heap[i];
            down(heap, values, i);
        }
        return sorted;
    }

    /** Larger value, or equal value and smaller id (a stable order). */
    private static boolean better(double[] values, int a, int b) {
        return values[a] > values[b] || (values[a] == values[b] && a < b);
    }

    private static void up(int[] heap, double[] values, int at) {
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!better(values, heap[parent], heap[at])) {
                break;
            }
            int t = heap[parent];
            heap[parent] = heap[at];
            heap[at] = t;
            at = parent;
        }
    }

    private static void down(int[] heap, double[] values, int size) {
        int at = 0;
        while (true) {
            int child = 2 * at + 1;
            if (child >= size) {
                return;
            }
            if (child + 1 < size && better(values, heap[child], heap[child + 1])) {
                child++;
            }
            if (!better(values, heap[at], heap[child])) {
                return;
            }
            int t = heap[child];
            heap[child] = heap[at];
            heap[at] = t;
            at = child;
        }
    }
}

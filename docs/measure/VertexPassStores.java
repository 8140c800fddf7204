// PageRank's vertex pass on the engine's layout, alone: for each of 2.42 M vertices (one
// worker's share of livejournal-synthetic) read its gathered sum, write its value, and store
// rank/degree into its broadcast slot with the slot's sent bit. What varies is the slots'
// order against the vertices': "seq" (slot = vertex), "classes" (by the degree's power of
// two, then vertex), "random" (a shuffle, like exact-degree slots on shuffled ids).
//
//   java docs/measure/VertexPassStores.java seq|classes|random [threads]
//
// Prints every eighth of 40 passes per thread. notebook.md ("The engine's PageRank against
// its floor") quotes 2 threads: ~8.1 ns a vertex for seq and classes, ~14.5 for random.
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;

public class VertexPassStores {
    static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    public static void main(String[] args) throws InterruptedException {
        String order = args.length > 0 ? args[0] : "seq";
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Thread[] running = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            running[t] = new Thread(() -> run(2_420_000, order));
            running[t].start();
        }
        for (Thread t : running) {
            t.join();
        }
    }

    static int degreeClass(int degree) {
        return Integer.SIZE - Integer.numberOfLeadingZeros(degree);
    }

    static void run(int n, String order) {
        Arena arena = Arena.ofShared();
        MemorySegment values = arena.allocate(8L * n, 64);
        MemorySegment broadcast = arena.allocate(8L * n + n / 8 + 64, 64);
        long sentBits = 8L * n;
        long[] gathered = new long[n];
        long[] hasMessage = new long[(n + 63) / 64];
        Arrays.fill(hasMessage, -1);
        int[] degree = new int[n];
        int[] slot = new int[n];
        Random random = new Random(1);
        for (int v = 0; v < n; v++) {
            degree[v] = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(30);
            slot[v] = v;
            gathered[v] = Double.doubleToRawLongBits(random.nextDouble());
        }
        switch (order) {
            case "seq" -> { }
            case "classes" -> {
                int[] next = new int[Integer.SIZE + 1];
                for (int v = 0; v < n; v++) {
                    next[degreeClass(degree[v])]++;
                }
                for (int c = Integer.SIZE, at = 0; c >= 0; c--) {
                    int count = next[c];
                    next[c] = at;
                    at += count;
                }
                for (int v = 0; v < n; v++) {
                    slot[v] = next[degreeClass(degree[v])]++;
                }
            }
            case "random" -> {
                for (int i = n - 1; i > 0; i--) {
                    int j = random.nextInt(i + 1);
                    int x = slot[i];
                    slot[i] = slot[j];
                    slot[j] = x;
                }
            }
            default -> throw new IllegalArgumentException("order: seq, classes or random, not " + order);
        }
        for (int pass = 0; pass < 40; pass++) {
            long began = System.nanoTime();
            double residual = 0;
            double dangling = 0;
            for (int v = 0; v < n; v++) {
                double incoming = (hasMessage[v >>> 6] & 1L << v) != 0 ? Double.longBitsToDouble(gathered[v]) : 0;
                double rank = 0.15 / n + 0.85 * (incoming + 1e-9);
                residual += Math.abs(rank - values.getAtIndex(DOUBLE, v));
                values.setAtIndex(DOUBLE, v, rank);
                int d = degree[v];
                if (d > 0) {
                    int s = slot[v];
                    broadcast.setAtIndex(DOUBLE, s, rank / d);
                    long word = sentBits + 8L * (s >>> 6);
                    broadcast.set(LONG, word, broadcast.get(LONG, word) | 1L << s);
                } else {
                    dangling += rank;
                }
            }
            long took = System.nanoTime() - began;
            if (pass % 8 == 7) {
                System.out.printf("%s %s: %.1f ms, %.1f ns a vertex (%g)%n", Thread.currentThread().getName(), order, took / 1e6,
                        took / (double) n, residual + dangling);
            }
        }
    }
}

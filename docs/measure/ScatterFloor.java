// This machine's floor for combining messages: adds 1.0 into random slots of an array, on one
// thread, directly and through buckets (propagation blocking), and prints nanoseconds per
// message. Any engine that combines one message per edge pays at least this much per edge.
//
//   java docs/measure/ScatterFloor.java [VERTICES [MESSAGES [RUNS]]]
//
// Defaults: LiveJournal's 4,847,571 vertices and half its edges (one worker of two), 3 runs.
// notebook.md ("Pregel PageRank, LiveJournal scale") quotes runs; it was 'carafe scatter-floor'.
import java.util.SplittableRandom;

public class ScatterFloor {
    public static void main(String[] args) {
        int vertices = args.length > 0 ? Integer.parseInt(args[0]) : 4_847_571;
        int messages = args.length > 1 ? Integer.parseInt(args[1]) : 33_800_000;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        if (vertices < 1 || messages < 1 || runs < 1) {
            throw new IllegalArgumentException("VERTICES, MESSAGES and RUNS must be >= 1");
        }
        int[] targets = new int[messages];
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < messages; i++) {
            targets[i] = random.nextInt(vertices);
        }
        double[] slots = new double[vertices];
        int shift = 18;
        int capacity = 1 << 14;
        int buckets = (vertices >>> shift) + 1;
        int[] bucketTarget = new int[buckets * capacity];
        double[] bucketValue = new double[buckets * capacity];
        int[] fill = new int[buckets];
        for (int r = 0; r < runs; r++) {
            long start = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                slots[targets[i]] += 1.0;
            }
            long direct = System.nanoTime() - start;
            start = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                int t = targets[i];
                int b = t >>> shift;
                int at = b * capacity + fill[b];
                bucketTarget[at] = t;
                bucketValue[at] = 1.0;
                if (++fill[b] == capacity) {
                    for (int k = b * capacity, end = k + capacity; k < end; k++) {
                        slots[bucketTarget[k]] += bucketValue[k];
                    }
                    fill[b] = 0;
                }
            }
            long blocked = System.nanoTime() - start;
            System.out.printf("run %d: direct %.1f ns/message, blocked %.1f ns/message (%,d messages into %,d slots)%n", r + 1,
                    (double) direct / messages, (double) blocked / messages, messages, vertices);
        }
    }
}

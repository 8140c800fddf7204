package io.carafe.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;

@Command(name = "scatter-floor",
        mixinStandardHelpOptions = true,
        header = "Measure this machine's floor for combining messages: a random scatter-add into an array.",
        description = {"Adds 1.0 into random slots of a --vertices array, --messages times, on one thread, both",
                "directly and through buckets (propagation blocking), and prints nanoseconds per message.",
                "Any engine that combines one message per edge pays at least this much per edge."})
final class ScatterFloorCommand implements Callable<Integer> {
    @Option(names = {"-n", "--vertices"}, defaultValue = "4847571", description = "array slots (default: ${DEFAULT-VALUE}, LiveJournal's vertices)")
    int vertices;

    @Option(names = {"-m", "--messages"}, defaultValue = "33800000", description = "messages (default: ${DEFAULT-VALUE}, half of LiveJournal's edges: one worker of two)")
    int messages;

    @Option(names = "--repeat", defaultValue = "3", description = "runs (default: ${DEFAULT-VALUE})")
    int repeat;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (vertices < 1 || messages < 1 || repeat < 1) {
            throw new IllegalArgumentException("--vertices, --messages and --repeat must be >= 1");
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
        PrintWriter out = spec.commandLine().getOut();
        for (int r = 0; r < repeat; r++) {
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
            out.printf("run %d: direct %.1f ns/message, blocked %.1f ns/message (%,d messages into %,d slots)%n", r + 1,
                    (double) direct / messages, (double) blocked / messages, messages, vertices);
        }
        out.flush();
        return 0;
    }
}

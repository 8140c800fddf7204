package io.carafe.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.function.BiConsumer;

/** -n trials of a kernel, as gapbs reports them: each trial's seconds, then min, avg and max. */
final class Trials {
    private Trials() {
    }

    /** Checks -n before anything is loaded. */
    static void check(int trials) {
        if (trials < 1) {
            throw new IllegalArgumentException("--trials must be >= 1, was " + trials);
        }
    }

    /**
     * Adds {@code trials[{trial, <name>Seconds, ...}]} (each trial's entry from {@code each})
     * and {@code trial<Name>Seconds{min, avg, max}} to {@code summary}; returns the table's line.
     */
    static String report(double[] seconds, String name, ObjectNode summary, BiConsumer<Integer, ObjectNode> each) {
        ArrayNode list = summary.putArray("trials");
        double min = Double.MAX_VALUE;
        double max = 0;
        double sum = 0;
        StringBuilder line = new StringBuilder(String.format("%d trials, %s", seconds.length, name));
        for (int t = 0; t < seconds.length; t++) {
            ObjectNode entry = list.addObject().put("trial", t + 1).put(name + "Seconds", seconds[t]);
            each.accept(t, entry);
            min = Math.min(min, seconds[t]);
            max = Math.max(max, seconds[t]);
            sum += seconds[t];
            line.append(String.format(" %.3f", seconds[t]));
        }
        double avg = sum / seconds.length;
        summary.putObject("trial" + Character.toUpperCase(name.charAt(0)) + name.substring(1) + "Seconds").put("min", min).put("avg", avg).put("max", max);
        return line.append(String.format(" s; min %.3f s, avg %.3f s, max %.3f s", min, avg, max)).toString();
    }
}

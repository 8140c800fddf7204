package io.carafe.algorithms.references;

import java.util.function.IntFunction;

/**
 * What an algorithm's verifier found when it checked a result against its independent
 * reference: agreement, or the first difference, in words a user can act on. {@code
 * detail} names what was compared ("every depth matches an independent BFS") or where it
 * differs ("vertex 17: 3, the reference says 2").
 */
public record Verdict(boolean agrees, String detail) {

    public static Verdict agreement(String detail) {
        return new Verdict(true, detail);
    }

    public static Verdict difference(String detail) {
        return new Verdict(false, detail);
    }

    /** The line --verify prints: "verify: OK (...)" or "verify: FAILED (...)". */
    public String line() {
        return "verify: " + (agrees ? "OK" : "FAILED") + " (" + detail + ")";
    }

    /** Labels (components, communities, counts) compared vertex by vertex; {@code name} says how a vertex is called. */
    public static Verdict sameLabels(long[] want, long[] got, IntFunction<String> name) {
        for (int v = 0; v < want.length; v++) {
            if (want[v] != got[v]) {
                return difference("vertex " + name.apply(v) + ": " + got[v] + ", the reference says " + want[v]);
            }
        }
        return agreement("every value matches an independent implementation");
    }

    /** Values compared vertex by vertex, equal where they are within {@code relative} of the reference (at least of 1). */
    public static Verdict closeValues(double[] want, double[] got, double relative, IntFunction<String> name) {
        for (int v = 0; v < want.length; v++) {
            if (!(Math.abs(want[v] - got[v]) <= relative * Math.max(1, Math.abs(want[v])))) {
                return difference("vertex " + name.apply(v) + ": " + got[v] + ", the reference says " + want[v]);
            }
        }
        return agreement("every value matches an independent implementation");
    }
}

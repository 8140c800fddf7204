package io.carafe.algorithms.pregel;

import io.carafe.pregel.RecordView;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

import java.util.Arrays;

/**
 * Community detection by label propagation (CDLP) as LDBC Graphalytics defines it:
 * synchronous, the initial label of a vertex is its original id, and in each of
 * {@code iterations} rounds every vertex takes the label most frequent among its
 * neighbours, ties going to the smallest. On a directed graph in- and out-neighbours both
 * count, so a neighbour joined both ways counts twice; a vertex without neighbours keeps
 * its label. Messages are not combined: a vertex reads every label it was sent.
 */
public final class LabelPropagation implements VertexProgram {
    private final int iterations;
    /** Per worker thread: the labels a vertex received, sorted to count them. */
    private final ThreadLocal<long[][]> scratch = ThreadLocal.withInitial(() -> new long[][] {new long[64]});

    public LabelPropagation(int iterations) {
        if (iterations < 0) {
            throw new IllegalArgumentException("CDLP needs iterations >= 0, was " + iterations);
        }
        this.iterations = iterations;
    }

    @Override
    public RecordLayout valueLayout() {
        return RecordLayout.LONG;
    }

    @Override
    public RecordLayout messageLayout() {
        return RecordLayout.LONG;
    }

    @Override
    public boolean needsInEdges() {
        return true;
    }

    @Override
    public void compute(Context ctx) {
        RecordView label = ctx.value();
        if (ctx.superstep() == 0) {
            label.setLong(0, ctx.originalId());
        } else if (ctx.hasMessages()) {
            label.setLong(0, mostFrequent(ctx));
        }
        if (ctx.superstep() < iterations) {
            RecordView m = ctx.newMessage();
            m.setLong(0, label.getLong(0));
            ctx.sendToAllNeighbours(m);
        }
        ctx.voteToHalt();
    }

    private long mostFrequent(Context ctx) {
        int n = ctx.messageCount();
        long[][] holder = scratch.get();
        if (holder[0].length < n) {
            holder[0] = new long[Math.max(n, 2 * holder[0].length)];
        }
        long[] labels = holder[0];
        for (int i = 0; i < n; i++) {
            labels[i] = ctx.message(i).getLong(0);
        }
        Arrays.sort(labels, 0, n);
        long best = labels[0];
        int bestCount = 0;
        for (int i = 0; i < n; ) {
            int j = i;
            while (j < n && labels[j] == labels[i]) {
                j++;
            }
            if (j - i > bestCount) { // ascending order: on a tie the smaller label, seen first, stays
                best = labels[i];
                bestCount = j - i;
            }
            i = j;
        }
        return best;
    }

    @Override
    public boolean masterCompute(MasterContext master) {
        return master.superstep() >= iterations;
    }

    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        out.append(value.getLong(0));
    }

    @Override
    public String spec() {
        return "cdlp iterations=" + iterations;
    }
}

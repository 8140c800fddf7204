package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.function.IntFunction;

/**
 * Community detection by label propagation (CDLP) as LDBC Graphalytics defines it:
 * synchronous, the initial label of a vertex is its original id, and in each of
 * {@code iterations} rounds every vertex takes the label most frequent among its
 * neighbours, ties going to the smallest. On a directed graph in- and out-neighbours both
 * count, so a neighbour joined both ways counts twice; a vertex without neighbours keeps
 * its label.
 *
 * <p>As Gemini does it, by reading the neighbours' labels rather than being sent them: a
 * vertex reads its own in- and out-edges and each neighbour's label as the previous
 * superstep left it ({@link Context#longValueOf}), and counts them in a per-worker hash
 * table that is cleared slot by slot. No message is sent, so the memory is the labels'
 * (three copies of the value array in RStore, one read copy per process), not one record
 * per edge.
 */
public final class LabelPropagation implements VertexProgram {
    private final int iterations;
    /** Per worker thread: the labels a vertex's neighbours hold, counted. */
    private final ThreadLocal<LabelCounts> scratch = ThreadLocal.withInitial(LabelCounts::new);

    public LabelPropagation(int iterations) {
        if (iterations < 0) {
            throw new IllegalArgumentException("CDLP needs iterations >= 0, was " + iterations);
        }
        this.iterations = iterations;
    }

    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).readingOtherValues().readingInEdges();
    }

    @Override
    public void compute(Context ctx) {
        RecordView label = ctx.value();
        if (ctx.superstep() == 0) {
            label.setLong(0, ctx.originalId());
        } else {
            LabelCounts counts = scratch.get();
            long[] neighbourLabels = counts.clear(ctx.outDegree() + (ctx.directed() ? ctx.inDegree() : 0));
            // Read every label first, then count: the reads are independent, so the core keeps
            // many of these cache misses in flight instead of one per probe of the table.
            int n = 0;
            for (Edges e = ctx.outEdges(); e.next(); ) {
                neighbourLabels[n++] = ctx.longValueOf(e.target());
            }
            if (ctx.directed()) {
                for (Edges e = ctx.inEdges(); e.next(); ) {
                    neighbourLabels[n++] = ctx.longValueOf(e.target());
                }
            }
            for (int i = 0; i < n; i++) {
                counts.add(neighbourLabels[i]);
            }
            if (counts.distinct() > 0) {
                label.setLong(0, counts.mostFrequent());
            }
        }
        if (ctx.superstep() >= iterations) {
            ctx.voteToHalt();
        }
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

    /**
     * Counts of labels, by open addressing (linear probing) in arrays that grow to the
     * largest neighbourhood seen and are cleared only where they were used. Each vertex
     * probes only the first power of two that holds its neighbourhood half full, so after
     * a hub a small vertex still hashes into a few cache lines, not the hub's whole table.
     */
    static final class LabelCounts {
        private long[] labels = new long[64];
        private int[] counts = new int[64];
        private int[] used = new int[32];
        private long[] gathered = new long[32];
        private int distinct;
        private int mask = 63;

        /**
         * Empties the table, with room for {@code most} labels at most half full, and
         * returns a buffer of at least {@code most} labels to gather them in first.
         */
        long[] clear(int most) {
            for (int i = 0; i < distinct; i++) {
                counts[used[i]] = 0;
            }
            distinct = 0;
            int capacity = Integer.highestOneBit(Math.max(16, 4 * most - 1));
            if (capacity > counts.length) {
                labels = new long[capacity];
                counts = new int[capacity];
                used = new int[capacity / 2];
            }
            if (most > gathered.length) {
                gathered = new long[capacity / 2];
            }
            mask = capacity - 1;
            return gathered;
        }

        void add(long label) {
            int slot = (int) (mix(label) & mask);
            while (counts[slot] != 0 && labels[slot] != label) {
                slot = (slot + 1) & mask;
            }
            if (counts[slot] == 0) {
                labels[slot] = label;
                used[distinct++] = slot;
            }
            counts[slot]++;
        }

        int distinct() {
            return distinct;
        }

        /** The label counted most often, the smallest among equals. */
        long mostFrequent() {
            long best = Long.MAX_VALUE;
            int bestCount = 0;
            for (int i = 0; i < distinct; i++) {
                int slot = used[i];
                if (counts[slot] > bestCount || counts[slot] == bestCount && labels[slot] < best) {
                    best = labels[slot];
                    bestCount = counts[slot];
                }
            }
            return best;
        }

        private static long mix(long x) { // a 64-bit finalizer (Stafford's mix 13): ids close together land far apart
            x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
            x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
            return x ^ (x >>> 31);
        }
    }

    /** The verifier: every vertex's label after this program's iterations against a sequential CDLP's ({@link References#labelPropagation}). */
    public Verdict verify(GraphFile g, long[] labels, IntFunction<String> name) {
        return Verdict.sameLabels(References.labelPropagation(g, iterations), labels, name);
    }
}

package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.graph.Neighbours;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.LongCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * Triangles on the undirected view of a graph (neighbourhood N(v) = in- ∪ out-neighbours,
 * without v), found once each, and from them the triangle count per vertex or the local
 * clustering coefficient as LDBC Graphalytics defines it: the number of directed edges
 * between neighbours of v over |N(v)|·(|N(v)|−1), 0 for fewer than two neighbours (an
 * undirected edge counts as two directed ones).
 *
 * <p>As gapbs's {@code tc}, by sorted-list intersection over degree-ordered neighbours,
 * reading the other corners' lists instead of asking them by message. Corners are ranked
 * by (out-degree + in-degree, id); a triangle is found at its lowest-ranked corner v,
 * among the neighbours ranked above it, A(v): for each u in A(v), the w after u in A(v)
 * that are in A(u) too, by a merge of lists of ranks. Every A is built once a process,
 * from the out- and in-lists (read one-sided), in vertex order (see {@link Orientation}).
 * That bounds the work by O(m·√m) and keeps nothing per edge in flight.
 *
 * <p>Superstep 0: v credits itself with the edges between u and w (1 when counting
 * triangles), u with those between v and w, w with those between v and u; u and w are
 * both in A(v), so v adds their credits up by position in A(v) and sends each member at
 * most one long, summed on the way (a combiner). Superstep 1: every vertex adds what it
 * was sent.
 */
public final class Triangles implements VertexProgram {
    public static final RecordLayout VALUE = RecordLayout.builder().addLong("neighbours").addLong("count").addDouble("lcc").build();
    public static final long NEIGHBOURS = VALUE.offset("neighbours");
    public static final long COUNT = VALUE.offset("count");
    public static final long LCC = VALUE.offset("lcc");
    private static final int OUT = 1; // v → u
    private static final int IN = 2;  // u → v

    private final boolean clustering;
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

    /** @param clustering true for LCC (credit = directed edges), false for triangle counts (credit = 1) */
    public Triangles(boolean clustering) {
        this.clustering = clustering;
    }

    @Override
    public Declaration declaration() {
        return Declaration.values(VALUE).messages(RecordLayout.LONG, LongCombiner.SUM).readingNeighbourhoods();
    }

    /** The job's workers in a process share one oriented graph ({@link Orientation}): ranks, places, lengths, sort keys, and 4 bytes an edge. */
    @Override
    public long processBytes(long vertices, long edges) {
        return Orientation.bytes(vertices, edges);
    }

    @Override
    public void compute(Context ctx) {
        RecordView value = ctx.value();
        Scratch lists = scratch.get();
        if (ctx.superstep() == 0) {
            value.setLong(NEIGHBOURS, lists.neighbourhood.of(ctx, ctx.vertex()).size);
            value.setLong(COUNT, findTriangles(ctx, lists));
        } else {
            lists.release(); // superstep 1 only adds up: the oriented graph is garbage now
            if (ctx.hasMessages()) {
                value.setLong(COUNT, value.getLong(COUNT) + ctx.messageLong());
            }
        }
        long d = value.getLong(NEIGHBOURS);
        value.setDouble(LCC, d < 2 ? 0 : value.getLong(COUNT) / ((double) d * (d - 1)));
        ctx.voteToHalt();
    }

    /**
     * The triangles whose lowest-ranked corner is this vertex v: for each u in A(v), the w
     * in A(v) after u (ranked above it) that are also in A(u), by a merge of the two lists
     * of ranks. Credits the other two corners by message, returns v's own credit.
     */
    private long findTriangles(Context ctx, Scratch lists) {
        long own = 0;
        int vLength = lists.ranked(ctx, ctx.vertex());
        int[] vEntries = lists.entries;
        int vStart = lists.start;
        long[] credits = lists.credits(vLength); // what each member of A(v) is owed: one message each, not one per triangle
        for (int a = 0; a < vLength; a++) {
            int vu = vEntries[vStart + a];
            int uLength = lists.rankedAt(vu >>> 2);
            int[] uEntries = lists.entries;
            int uStart = lists.start;
            for (int i = a + 1, j = 0; i < vLength && j < uLength; ) {
                int x = vEntries[vStart + i] >>> 2;
                int y = uEntries[uStart + j] >>> 2;
                if (x < y) {
                    i++;
                } else if (x > y) {
                    j++;
                } else { // w: the triangle {v, u, w}
                    own += credit(uEntries[uStart + j]);
                    credits[a] += credit(vEntries[vStart + i]); // u: the edges between v and w
                    credits[i] += credit(vu);                   // w: those between v and u
                    i++;
                    j++;
                }
            }
        }
        for (int a = 0; a < vLength; a++) {
            if (credits[a] != 0) {
                ctx.sendTo(lists.vertexAt(vEntries[vStart + a] >>> 2), credits[a]);
            }
        }
        return own;
    }

    /** What one joined pair of vertices credits the third corner with: an entry's bits say how they are joined. */
    private int credit(int entry) {
        return clustering ? Integer.bitCount(entry & (OUT | IN)) : 1;
    }

    @Override
    public boolean masterCompute(MasterContext master) {
        return master.superstep() >= 1;
    }

    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        if (clustering) {
            out.append(value.getDouble(LCC));
        } else {
            out.append(value.getLong(COUNT));
        }
    }

    @Override
    public String spec() {
        return clustering ? "lcc" : "triangles";
    }

    /**
     * The graph oriented by rank, as gapbs's tc relabels its graph, built once and then only
     * read, one copy shared by the job's workers in this process ({@link
     * Context#sharedInProcess}). Vertices are numbered by (out-degree + in-degree, id), their
     * ranks; A(x), the neighbours ranked above x, is kept as ascending entries rank &lt;&lt; 2 |
     * how each is joined (OUT, IN or both), 4 bytes per undirected edge, in pages that never
     * move. It is built in vertex order, so the edge arrays stream through the builder's
     * neighbourhood cache once; a triangle then costs a step of a merge, and the members of
     * A(v) ranked above u are the tail of A(v) after u. One copy a process, not one a worker
     * (what that saves: docs/measure/notebook.md).
     */
    static final class Orientation {
        /** Ranks fit an entry beside the two bits of how the vertex is joined. */
        static final long MAX_VERTICES = 1L << 30;
        private static final int PAGE = 1 << 20;
        private final int[] rankOf;   // vertex -> rank
        private final int[] vertexAt; // rank -> vertex
        private final long[] where;   // per rank: page << 32 | offset of its list
        private final int[] lengths;  // per rank
        private int[][] pages = new int[4][];
        private int pageCount;
        private int used = PAGE;      // entries used of the last page: none is open yet

        /** Ranks every vertex, then builds every A, in vertex order, reading the lists through {@code ctx}. */
        Orientation(Context ctx) {
            long count = ctx.vertexCount();
            if (count > MAX_VERTICES) {
                throw new IllegalStateException("triangles and LCC orient at most " + MAX_VERTICES + " vertices, the graph has " + count);
            }
            int n = (int) count;
            long[] keys = new long[n];
            for (int x = 0; x < n; x++) {
                keys[x] = (long) (ctx.outDegreeOf(x) + ctx.inDegreeOf(x)) << 32 | x;
            }
            Arrays.sort(keys);
            rankOf = new int[n];
            vertexAt = new int[n];
            for (int r = 0; r < n; r++) {
                vertexAt[r] = (int) keys[r];
                rankOf[vertexAt[r]] = r;
            }
            keys = null; // garbage before the lists grow
            where = new long[n];
            lengths = new int[n];
            Neighbourhood neighbourhood = new Neighbourhood();
            int[] above = new int[64];
            for (int x = 0; x < n; x++) {
                Neighbourhood nx = neighbourhood.of(ctx, x);
                if (above.length < nx.size) {
                    above = new int[Math.max(nx.size, 2 * above.length)];
                }
                int mine = rankOf[x];
                int length = 0;
                for (int i = 0; i < nx.size; i++) {
                    int r = rankOf[nx.ids[i]];
                    if (r > mine) {
                        above[length++] = r << 2 | nx.flags[i]; // ranks below 2^30: the entry's order is the rank's
                    }
                }
                sortUnsigned(above, length);
                add(mine, above, length);
            }
        }

        /** Sorts {@code entries[0, length)} as unsigned ints: ranks from 2^29 on set the sign bit. */
        private static void sortUnsigned(int[] entries, int length) {
            for (int i = 0; i < length; i++) {
                entries[i] ^= Integer.MIN_VALUE;
            }
            Arrays.sort(entries, 0, length);
            for (int i = 0; i < length; i++) {
                entries[i] ^= Integer.MIN_VALUE;
            }
        }

        private void add(int rank, int[] entries, int length) {
            if (used + length > PAGE || pageCount == 0) { // a new page, of the list's size if it is longer than a page
                if (pageCount == pages.length) {
                    pages = Arrays.copyOf(pages, 2 * pageCount);
                }
                pages[pageCount++] = new int[Math.max(PAGE, length)];
                used = 0;
            }
            where[rank] = (long) (pageCount - 1) << 32 | used;
            lengths[rank] = length;
            System.arraycopy(entries, 0, pages[pageCount - 1], used, length);
            used += length;
        }

        /** Bytes it holds on a graph of {@code vertices} and {@code edges}, at its peak (the sort keys while ranking). */
        static long bytes(long vertices, long edges) {
            return 28 * vertices + 4 * edges;
        }
    }

    /**
     * A worker thread's cursor into the shared {@link Orientation} and its own scratch. A new
     * job's worker has a new context (the thread may be the last job's), and takes that
     * job's orientation.
     */
    private static final class Scratch {
        final Neighbourhood neighbourhood = new Neighbourhood();
        private Orientation oriented;
        private long[] credits = new long[64];
        private WeakReference<Context> owner = new WeakReference<>(null);
        // what ranked(...) and rankedAt(...) found
        int[] entries;
        int start;

        /** Vertex {@code x}'s list A(x): {@link #entries} from {@link #start}; returns its length. */
        int ranked(Context ctx, int x) {
            if (oriented == null || owner.get() != ctx) {
                owner = new WeakReference<>(ctx);
                oriented = ctx.sharedInProcess(Orientation.class, () -> new Orientation(ctx));
            }
            return rankedAt(oriented.rankOf[x]);
        }

        /** Lets go of the orientation (the job's workers share it until the job ends). */
        void release() {
            oriented = null;
            entries = null;
        }

        /** The list of the vertex of rank {@code r}, as {@link #ranked}. */
        int rankedAt(int r) {
            long at = oriented.where[r];
            entries = oriented.pages[(int) (at >>> 32)];
            start = (int) at;
            return oriented.lengths[r];
        }

        int vertexAt(int r) {
            return oriented.vertexAt[r];
        }

        /** Zeroed room for the credits of a list of {@code length}. */
        long[] credits(int length) {
            if (credits.length < length) {
                credits = new long[Math.max(length, 2 * credits.length)];
            }
            Arrays.fill(credits, 0, length, 0);
            return credits;
        }
    }

    /** A vertex's distinct neighbours, with how each is joined (OUT, IN or both); reused. */
    private static final class Neighbourhood {
        int[] ids = new int[64];
        int[] flags = new int[64];
        int size;

        /** Merges vertex {@code x}'s out- and in-lists (both ascending), leaving {@code x} itself out. */
        Neighbourhood of(Context ctx, int x) {
            Neighbours out = ctx.outNeighbours(x);
            Neighbours in = ctx.inNeighbours(x);
            int most = out.size() + in.size();
            if (ids.length < most) {
                ids = new int[Math.max(most, 2 * ids.length)];
                flags = new int[ids.length];
            }
            int n = 0;
            int i = 0;
            int j = 0;
            while (i < out.size() || j < in.size()) {
                int o = i < out.size() ? out.get(i) : Integer.MAX_VALUE;
                int t = j < in.size() ? in.get(j) : Integer.MAX_VALUE;
                int id = Math.min(o, t);
                int f = (o == id ? OUT : 0) | (t == id ? IN : 0);
                i += o == id ? 1 : 0;
                j += t == id ? 1 : 0;
                if (id != x) {
                    ids[n] = id;
                    flags[n++] = f;
                }
            }
            size = n;
            return this;
        }
    }

    /** The verifier of triangle counts: every vertex's against sorted-list intersection's ({@link References#triangles}). */
    public static Verdict verifyCounts(GraphFile g, long[] counts, IntFunction<String> name) {
        return Verdict.sameLabels(References.triangles(g), counts, name);
    }

    /** The verifier of clustering coefficients: every vertex's within 1e-12 (relative) of {@link References#clusteringCoefficients}. */
    public static Verdict verifyCoefficients(GraphFile g, double[] lcc, IntFunction<String> name) {
        return Verdict.closeValues(References.clusteringCoefficients(g), lcc, 1e-12, name);
    }
}

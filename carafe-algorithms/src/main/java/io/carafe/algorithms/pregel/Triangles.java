package io.carafe.algorithms.pregel;

import io.carafe.graph.Neighbours;
import io.carafe.pregel.LongCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.lang.ref.WeakReference;
import java.util.Arrays;

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
 * that are in A(u) too, by a merge of lists of ranks. Each worker builds every A once,
 * from the out- and in-lists (read one-sided), in vertex order (see {@link Scratch}).
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
    public RecordLayout valueLayout() {
        return VALUE;
    }

    @Override
    public RecordLayout messageLayout() {
        return RecordLayout.LONG;
    }

    @Override
    public LongCombiner combiner() {
        return LongCombiner.SUM;
    }

    @Override
    public boolean readsNeighbourhoods() {
        return true;
    }

    /** Each worker orients the whole graph ({@link Scratch}): 36 bytes a vertex (ranks, places, lengths, sort keys), 5 an edge. */
    @Override
    public long workerBytes(long vertices, long edges, int workers) {
        return 36 * vertices + 5 * edges;
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
        int[] vRanks = lists.ranks;
        byte[] vFlags = lists.flags;
        int vStart = lists.start;
        long[] credits = lists.credits(vLength); // what each member of A(v) is owed: one message each, not one per triangle
        for (int a = 0; a < vLength; a++) {
            int vu = vFlags[vStart + a];
            int uLength = lists.rankedAt(vRanks[vStart + a]);
            int[] uRanks = lists.ranks;
            byte[] uFlags = lists.flags;
            int uStart = lists.start;
            for (int i = a + 1, j = 0; i < vLength && j < uLength; ) {
                int x = vRanks[vStart + i];
                int y = uRanks[uStart + j];
                if (x < y) {
                    i++;
                } else if (x > y) {
                    j++;
                } else { // w: the triangle {v, u, w}
                    own += credit(uFlags[uStart + j]);
                    credits[a] += credit(vFlags[vStart + i]); // u: the edges between v and w
                    credits[i] += credit(vu);                 // w: those between v and u
                    i++;
                    j++;
                }
            }
        }
        for (int a = 0; a < vLength; a++) {
            if (credits[a] != 0) {
                ctx.sendTo(lists.vertexAt(vRanks[vStart + a]), credits[a]);
            }
        }
        return own;
    }

    /** What one joined pair of vertices credits the third corner with. */
    private int credit(int flags) {
        return clustering ? Integer.bitCount(flags) : 1;
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
     * A worker thread's scratch: the graph oriented by rank, as gapbs's tc relabels its
     * graph. Vertices are numbered by (out-degree + in-degree, id), their ranks; A(x), the
     * neighbours ranked above x with how each is joined (OUT, IN or both), is kept as
     * ascending ranks in pages that never move, about 5 bytes per undirected edge per
     * worker. All of it is built at the worker's first call, in vertex order, so the edge
     * arrays stream through the neighbourhood cache once; a triangle then costs a step of
     * a merge, and the members of A(v) ranked above u are the tail of A(v) after u.
     */
    private static final class Scratch {
        private static final int PAGE = 1 << 20;
        final Neighbourhood neighbourhood = new Neighbourhood();
        private int[] rankOf;     // vertex -> rank
        private int[] vertexAt;   // rank -> vertex
        private long[] where;     // per rank: page << 32 | offset of its list
        private int[] lengths;    // per rank
        private int[][] rankPages = new int[4][];
        private byte[][] flagPages = new byte[4][];
        private int pages;
        private int used = PAGE;  // ints used of the last page: none is open yet
        private long[] sorting = new long[64];
        private long[] credits = new long[64];
        private WeakReference<Context> owner = new WeakReference<>(null);
        // what ranked(...) and rankedAt(...) found
        int[] ranks;
        byte[] flags;
        int start;

        /**
         * Vertex {@code x}'s list A(x): {@link #ranks}, {@link #flags} and {@link #start} say
         * where; returns its length. Built for the worker whose context {@code ctx} is (a new
         * job's worker has a new one; the thread may be the last job's).
         */
        int ranked(Context ctx, int x) {
            if (where == null || owner.get() != ctx) {
                release();
                owner = new WeakReference<>(ctx);
                orient(ctx);
            }
            return rankedAt(rankOf[x]);
        }

        /** Drops the oriented graph. */
        void release() {
            if (where == null) {
                return;
            }
            rankOf = null;
            vertexAt = null;
            where = null;
            lengths = null;
            ranks = null;
            flags = null;
            rankPages = new int[4][];
            flagPages = new byte[4][];
            pages = 0;
            used = PAGE;
        }

        /** The list of the vertex of rank {@code r}, as {@link #ranked}. */
        int rankedAt(int r) {
            int page = (int) (where[r] >>> 32);
            ranks = rankPages[page];
            flags = flagPages[page];
            start = (int) where[r];
            return lengths[r];
        }

        int vertexAt(int r) {
            return vertexAt[r];
        }

        /** Zeroed room for the credits of a list of {@code length}. */
        long[] credits(int length) {
            if (credits.length < length) {
                credits = new long[Math.max(length, 2 * credits.length)];
            }
            Arrays.fill(credits, 0, length, 0);
            return credits;
        }

        /** Ranks every vertex, then builds every A, in vertex order. */
        private void orient(Context ctx) {
            int n = Math.toIntExact(ctx.vertexCount());
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
            where = new long[n];
            lengths = new int[n];
            for (int x = 0; x < n; x++) {
                build(ctx, x);
            }
        }

        private void build(Context ctx, int x) {
            Neighbourhood n = neighbourhood.of(ctx, x);
            int mine = rankOf[x];
            if (sorting.length < n.size) {
                sorting = new long[Math.max(n.size, 2 * sorting.length)];
            }
            int above = 0;
            for (int i = 0; i < n.size; i++) {
                int r = rankOf[n.ids[i]];
                if (r > mine) {
                    sorting[above++] = (long) r << 2 | n.flags[i];
                }
            }
            Arrays.sort(sorting, 0, above);
            if (used + above > PAGE || pages == 0) { // a new page, of the list's size if it is longer than a page
                if (pages == rankPages.length) {
                    rankPages = Arrays.copyOf(rankPages, 2 * pages);
                    flagPages = Arrays.copyOf(flagPages, 2 * pages);
                }
                rankPages[pages] = new int[Math.max(PAGE, above)];
                flagPages[pages] = new byte[rankPages[pages].length];
                pages++;
                used = 0;
            }
            int[] pageRanks = rankPages[pages - 1];
            byte[] pageFlags = flagPages[pages - 1];
            where[mine] = (long) (pages - 1) << 32 | used;
            lengths[mine] = above;
            for (int i = 0; i < above; i++) {
                pageRanks[used] = (int) (sorting[i] >>> 2);
                pageFlags[used++] = (byte) (sorting[i] & 3);
            }
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
}

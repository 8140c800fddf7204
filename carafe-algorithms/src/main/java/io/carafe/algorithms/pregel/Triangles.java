package io.carafe.algorithms.pregel;

import io.carafe.pregel.RecordView;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

import java.util.Arrays;

/**
 * Triangles on the undirected view of a graph (neighbourhood N(v) = in- ∪ out-neighbours,
 * without v), found once each, and from them the triangle count per vertex or the local
 * clustering coefficient as LDBC Graphalytics defines it: the number of directed edges
 * between neighbours of v over |N(v)|·(|N(v)|−1), 0 for fewer than two neighbours (an
 * undirected edge counts as two directed ones).
 *
 * <p>Corners are ranked by (|N|, id), and a triangle is found from its lowest-ranked
 * corner only, which bounds the questions by the ranked-above neighbours of each vertex
 * (at most about √(2m) of them) instead of by its whole neighbourhood: ordered by id, the
 * hubs of a skewed graph asked about every pair of their neighbours (a 65,536-vertex
 * R-MAT graph needed over 20 GB of messages). Superstep 0: every vertex tells its
 * neighbours |N|. Superstep 1: v asks each neighbour u ranked above it, for each
 * neighbour w ranked above u, whether u and w are joined, saying how v and w are joined.
 * Superstep 2: u answers from its own neighbourhood; for a triangle {v, u, w} each corner
 * is credited with the edges between the other two (or with 1 when counting triangles): u
 * adds its own, and sends v's and w's. Superstep 3: v and w add what they were sent.
 * Messages are fixed records; a vertex keeps its neighbourhood only while it computes
 * (per-thread scratch).
 */
public final class Triangles implements VertexProgram {
    public static final RecordLayout VALUE = RecordLayout.builder().addLong("neighbours").addLong("count").addDouble("lcc").build();
    public static final long NEIGHBOURS = VALUE.offset("neighbours");
    public static final long COUNT = VALUE.offset("count");
    public static final long LCC = VALUE.offset("lcc");
    /**
     * kind 0: a question (from = v, other = w, flags = how v and w are joined); kind 1: a
     * credit of {@code other}; kind 2: a neighbour's size (from = the neighbour, other = its |N|).
     */
    static final RecordLayout MESSAGE = RecordLayout.builder().addInt("kind").addInt("from").addInt("other").addInt("flags").build();
    private static final long KIND = MESSAGE.offset("kind");
    private static final long FROM = MESSAGE.offset("from");
    private static final long OTHER = MESSAGE.offset("other");
    private static final long FLAGS = MESSAGE.offset("flags");
    private static final int OUT = 1;
    private static final int IN = 2;

    private final boolean clustering;
    private final ThreadLocal<Neighbourhood> scratch = ThreadLocal.withInitial(Neighbourhood::new);

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
        return MESSAGE;
    }

    @Override
    public boolean needsInEdges() {
        return true;
    }

    @Override
    public void compute(Context ctx) {
        RecordView value = ctx.value();
        long step = ctx.superstep();
        if (step == 0) {
            Neighbourhood n = scratch.get().of(ctx);
            value.setLong(NEIGHBOURS, n.size);
            RecordView size = ctx.newMessage();
            size.setInt(KIND, 2);
            size.setInt(FROM, ctx.vertex());
            size.setInt(OTHER, n.size);
            for (int i = 0; i < n.size; i++) {
                ctx.sendTo(n.ids[i], size);
            }
        } else if (step == 1 && ctx.hasMessages()) {
            Neighbourhood n = scratch.get().of(ctx);
            int above = n.rankedAbove(ctx, rank(value.getLong(NEIGHBOURS), ctx.vertex()));
            int v = ctx.vertex();
            RecordView question = ctx.newMessage();
            for (int a = 0; a < above; a++) {
                int u = (int) n.ranked[a];
                for (int b = a + 1; b < above; b++) { // w ranked above u
                    question.setInt(KIND, 0);
                    question.setInt(FROM, v);
                    question.setInt(OTHER, (int) n.ranked[b]);
                    question.setInt(FLAGS, n.rankedFlags[b]);
                    ctx.sendTo(u, question);
                }
            }
        } else if (step == 2 && ctx.hasMessages()) {
            Neighbourhood n = scratch.get().of(ctx);
            RecordView credit = ctx.newMessage();
            credit.setInt(KIND, 1);
            long own = 0;
            for (int i = 0, count = ctx.messageCount(); i < count; i++) {
                RecordView q = ctx.message(i);
                int v = q.getInt(FROM);
                int w = q.getInt(OTHER);
                int uw = n.flagsOf(w);
                if (uw == 0) {
                    continue;
                }
                int vu = n.flagsOf(v);
                own += credit(q.getInt(FLAGS));
                credit.setInt(OTHER, credit(uw));
                ctx.sendTo(v, credit);
                credit.setInt(OTHER, credit(vu));
                ctx.sendTo(w, credit);
            }
            value.setLong(COUNT, value.getLong(COUNT) + own);
        } else if (step == 3) {
            long got = 0;
            for (int i = 0, count = ctx.messageCount(); i < count; i++) {
                got += ctx.message(i).getInt(OTHER);
            }
            value.setLong(COUNT, value.getLong(COUNT) + got);
        }
        if (step >= 1) {
            long d = value.getLong(NEIGHBOURS);
            value.setDouble(LCC, d < 2 ? 0 : value.getLong(COUNT) / ((double) d * (d - 1)));
        }
        ctx.voteToHalt();
    }

    /** A corner's rank: by neighbourhood size, then id; distinct for distinct vertices. */
    private static long rank(long neighbours, int vertex) {
        return neighbours << 32 | vertex;
    }

    /** What one joined pair of vertices credits the third corner with. */
    private int credit(int flags) {
        return clustering ? Integer.bitCount(flags) : 1;
    }

    @Override
    public boolean masterCompute(MasterContext master) {
        return master.superstep() >= 3;
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

    /** The sorted, distinct neighbours of the vertex being computed, each with how it is joined (OUT, IN or both). */
    private static final class Neighbourhood {
        int[] ids = new int[64];
        int[] flags = new int[64];
        long[] packed = new long[64];
        int size;

        Neighbourhood of(Context ctx) {
            int most = ctx.outDegree() + ctx.inDegree();
            if (packed.length < most) {
                packed = new long[Math.max(most, 2 * packed.length)];
                ids = new int[packed.length];
                flags = new int[packed.length];
            }
            int n = 0;
            int self = ctx.vertex();
            for (VertexProgram.Edges e = ctx.outEdges(); e.next(); ) {
                if (e.target() != self) {
                    packed[n++] = (long) e.target() << 2 | OUT;
                }
            }
            for (VertexProgram.Edges e = ctx.inEdges(); e.next(); ) {
                if (e.target() != self) {
                    packed[n++] = (long) e.target() << 2 | IN;
                }
            }
            Arrays.sort(packed, 0, n);
            size = 0;
            for (int i = 0; i < n; i++) {
                int id = (int) (packed[i] >>> 2);
                int f = (int) (packed[i] & 3);
                if (size > 0 && ids[size - 1] == id) {
                    flags[size - 1] |= f;
                } else {
                    ids[size] = id;
                    flags[size++] = f;
                }
            }
            return this;
        }

        long[] ranked = new long[64];
        int[] rankedFlags = new int[64];

        /**
         * From the sizes its neighbours sent (messages of kind 2), the neighbours ranked above
         * {@code mine}, lowest first, into {@link #ranked} (their ids in the low 32 bits) and
         * {@link #rankedFlags}; returns how many.
         */
        int rankedAbove(Context ctx, long mine) {
            if (ranked.length < size) {
                ranked = new long[Math.max(size, 2 * ranked.length)];
                rankedFlags = new int[ranked.length];
            }
            int above = 0;
            for (int i = 0, count = ctx.messageCount(); i < count; i++) {
                RecordView m = ctx.message(i);
                long r = rank(m.getInt(OTHER), m.getInt(FROM));
                if (r > mine) {
                    ranked[above++] = r;
                }
            }
            Arrays.sort(ranked, 0, above);
            for (int a = 0; a < above; a++) {
                rankedFlags[a] = flagsOf((int) ranked[a]);
            }
            return above;
        }

        /** How {@code id} is joined to this vertex; 0 if it is not a neighbour. */
        int flagsOf(int id) {
            int at = Arrays.binarySearch(ids, 0, size, id);
            return at < 0 ? 0 : flags[at];
        }
    }
}

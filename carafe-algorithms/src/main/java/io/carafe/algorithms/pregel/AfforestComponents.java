package io.carafe.algorithms.pregel;

import io.carafe.pregel.Aggregator;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.LongCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.List;

/**
 * Weakly connected components by hooking and pointer jumping, on Afforest's schedule
 * (Sutton, Ben-Nun and Barak, IPDPS 2018), so that most edges are never read: label
 * propagation ({@link ConnectedComponents}) reads every edge in each of its first
 * supersteps, as many as the graph's diameter asks.
 *
 * <p>Each vertex holds a parent, a vertex of its component no larger than itself (its own
 * internal id at the start). Every superstep, reading the parents as the previous one left
 * them or newer ({@link Context#longValueOf}, {@link Declaration#readingNewerValues}), a vertex v
 * <ul>
 * <li>climbs: follows up to {@value #CLIMB} parent links from its parent to r, a root or
 *     near one, and takes r (pointer jumping);</li>
 * <li>for each neighbour u it looks at, climbing as far from u to s: takes s when s &lt; r, and
 *     hooks (a message, combined by minimum) the larger of r and s under the smaller, as
 *     FastSV does (Zhang, Azad and Hu, 2020) and union-find's link;</li>
 * <li>takes the smallest parent it was hooked under.</li>
 * </ul>
 * Parents only shrink and stay in their component, so a component's smallest vertex is
 * always its own parent. A superstep in which nobody changed or hooked leaves every
 * looked-at edge's ends with one parent, and every parent its own: a fixpoint. Reading
 * parents changed earlier in the same superstep (a worker's own and, among thread workers,
 * each other's) changes none of this, as any parent read is one the vertex had, old or new,
 * and in a superstep in which nobody changed every read is the previous superstep's; it
 * lets the climbs reach further, and on livejournal-synthetic sampling then ends a superstep
 * sooner (docs/measure/notebook.md).
 *
 * <p>Sampling: vertices look at their first {@value #SAMPLED} neighbours only, until a
 * superstep hooks few vertices ({@link #SAMPLING_ENDS}); that gathers the big component
 * under one root. Then the rest: vertices look at all their neighbours. In both, from
 * superstep 1 on, a vertex whose climb ends where the heaviest vertex's does (the big
 * component's root, as it stands) looks at none: it stays under that root, as trees only
 * merge, and an edge from it to a vertex outside is looked at from the other end in the
 * rest. So sampling's last supersteps, which find the big component nearly whole, cost
 * about what a superstep of the rest does. At that fixpoint every edge's ends share a parent, which is then the smallest
 * vertex of their component: its label, as an original id, is learnt in two more supersteps
 * (roots first, then the others from their root), one where every root's original id is
 * its internal id, and none where every vertex's is (generated graphs, files numbered
 * 0..n-1), which superstep 0 finds out. Direction is ignored; on a directed graph
 * neighbours are out- and in-neighbours.
 */
public final class AfforestComponents implements VertexProgram {
    /** Neighbours each vertex looks at while sampling: Afforest's two rounds. */
    public static final int SAMPLED = 2;
    /**
     * Sampling ends when a superstep hooks at most one vertex in this many: the big
     * component has its root, and what is left of the sampled edges' work (the last
     * pointer jumps) is done alongside the rest. Waiting for the sampling's fixpoint took
     * three more supersteps (docs/measure/notebook.md).
     */
    static final long SAMPLING_ENDS = 1000;
    /**
     * Parent links a vertex follows a superstep, from its parent and from each neighbour it
     * looks at. Hooking the trees' tops rather than the parents joins trees sooner; the bound keeps
     * a long chain (a path's, or a grid's first supersteps) from costing its length at every
     * vertex. One link (plain pointer jumping) took more supersteps, and no bound took far
     * longer on a grid (docs/measure/notebook.md has the counts).
     */
    static final int CLIMB = 4;
    // globals
    private static final int PHASE = 0;
    private static final int HEAVIEST = 1; // the vertex of largest degree, which the big component holds
    private static final int RENAMING = 2; // 1 if some vertex's original id is not its internal id
    // phases
    private static final long SAMPLING = 0;
    private static final long REST = 1;
    private static final long ROOTS = 2;
    private static final long MEMBERS = 3;
    // aggregators
    private static final int UNSETTLED = 0;
    private static final int DEGREE_AND_VERTEX = 1;
    private static final int RENAMED = 2; // vertices (superstep 0), then roots (ROOTS), whose original id is not their internal id

    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).readingNewerValues().readingInEdges();
    }

    /**
     * Hooks go only where two tops differ, and reading newer parents most tops agree: the
     * busiest superstep sent 0.23, 0.28, 0.007 and 0.33 hooks a vertex on wiki-Vote,
     * demo-rmat16, grid-1400 and livejournal-synthetic, against the engine's one a vertex from
     * each worker. Half a hook a vertex, for the estimate.
     */
    @Override
    public long busiestSuperstepMessages(long vertices, long edges, int workers) {
        return vertices / 2;
    }

    @Override
    public List<Aggregator> aggregators() {
        return List.of(Aggregator.sumLong(), Aggregator.maxLong(), Aggregator.sumLong());
    }

    @Override
    public int globals() {
        return 3;
    }

    @Override
    public void compute(Context ctx) {
        int v = ctx.vertex();
        long phase = ctx.globalLong(PHASE);
        RecordView value = ctx.value();
        if (phase == ROOTS) {
            if (value.getLong(0) == v) {
                value.setLong(0, ctx.originalId());
                ctx.voteToHalt(); // the others read it next superstep
                if (ctx.originalId() != v) {
                    ctx.aggregate(RENAMED, 1L);
                }
            }
            return;
        }
        if (phase == MEMBERS) {
            value.setLong(0, ctx.longValueOf((int) value.getLong(0)));
            ctx.voteToHalt();
            return;
        }
        if (ctx.superstep() == 0) {
            int degree = ctx.outDegree() + (ctx.directed() ? ctx.inDegree() : 0);
            ctx.aggregate(DEGREE_AND_VERTEX, (long) degree << 32 | (Integer.MAX_VALUE - v));
            if (degree == 0) { // a component of its own, which nobody reads as a neighbour or parent: labelled now, and done
                value.setLong(0, ctx.originalId());
                ctx.voteToHalt();
                return;
            }
            if (ctx.originalId() != v) {
                ctx.aggregate(RENAMED, 1L);
            }
        }
        long parent = ctx.superstep() == 0 ? v : value.getLong(0); // what others read as its parent
        long top = climb(ctx, parent);
        long seen = top << 1; // what the edges show (see hookAlong): nothing yet
        // the heaviest vertex is known from superstep 1 on; a vertex under its root leaves its edges to their other ends
        boolean joinedBig = ctx.superstep() > 0 && top == climb(ctx, ctx.globalLong(HEAVIEST));
        if (phase == SAMPLING && !joinedBig) {
            seen = hookAlong(ctx, ctx.outEdges(), top, SAMPLED, seen);
            if (ctx.directed() && ctx.outDegree() < SAMPLED) {
                seen = hookAlong(ctx, ctx.inEdges(), top, SAMPLED - ctx.outDegree(), seen);
            }
        } else if (phase == REST && !joinedBig) {
            seen = hookAlong(ctx, ctx.outEdges(), top, Integer.MAX_VALUE, seen);
            if (ctx.directed()) {
                seen = hookAlong(ctx, ctx.inEdges(), top, Integer.MAX_VALUE, seen);
            }
        }
        long next = Math.min(seen >>> 1, ctx.hasMessages() ? ctx.messageLong() : parent);
        if (next != parent || ctx.superstep() == 0) { // value() starts zero, not at the vertex
            value.setLong(0, next);
        }
        if (next != parent || top != parent || (seen & 1) != 0) {
            ctx.aggregate(UNSETTLED, 1L);
        }
    }

    /**
     * Looks at up to {@code limit} of {@code edges}. A neighbour whose climb ends elsewhere
     * than {@code top}: the larger of the two ends is hooked under the smaller. {@code seen}
     * and the result hold what the edges showed: the smallest end seen (the vertex's own
     * included) shifted left one, and in bit 0 whether any neighbour's differed.
     */
    private static long hookAlong(Context ctx, Edges edges, long top, int limit, long seen) {
        long smallest = seen >>> 1;
        long differed = seen & 1;
        for (int looked = 0; looked < limit && edges.next(); looked++) {
            long other = climb(ctx, edges.target());
            if (other < top) {
                smallest = Math.min(smallest, other);
                if (top != ctx.vertex()) { // a vertex that is its own top takes the smallest itself
                    ctx.sendTo((int) top, other);
                }
                differed = 1;
            } else if (other > top) {
                ctx.sendTo((int) other, top);
                differed = 1;
            }
        }
        return smallest << 1 | differed;
    }

    /**
     * Where {@value #CLIMB} parent links from {@code vertex} lead, as the previous superstep
     * left the parents (fewer at a root); in superstep 0, when nothing is yet written, the
     * vertex itself.
     */
    private static long climb(Context ctx, long vertex) {
        if (ctx.superstep() == 0) {
            return vertex;
        }
        long at = vertex;
        for (int links = 0; links < CLIMB; links++) {
            long up = ctx.longValueOf((int) at);
            if (up == at) {
                break;
            }
            at = up;
        }
        return at;
    }

    @Override
    public boolean masterCompute(MasterContext master) {
        if (master.superstep() == 0) {
            long key = master.aggregatedLong(DEGREE_AND_VERTEX);
            master.setGlobal(HEAVIEST, key == Long.MIN_VALUE ? 0 : Integer.MAX_VALUE - (int) (key & 0xffff_ffffL));
            master.setGlobal(RENAMING, master.aggregatedLong(RENAMED) > 0 ? 1 : 0);
        }
        long phase = master.globalLong(PHASE);
        if (phase == MEMBERS || (phase == ROOTS && master.aggregatedLong(RENAMED) == 0)) {
            return true; // when every root's original id is its internal id, the others' parents are their labels already
        }
        if (phase == REST && master.aggregatedLong(UNSETTLED) == 0 && master.globalLong(RENAMING) == 0) {
            return true; // every parent is its component's smallest internal id, which is its original id
        }
        boolean sampled = phase == SAMPLING && master.messagesSent() <= master.vertexCount() / SAMPLING_ENDS;
        if (phase == ROOTS || sampled || master.aggregatedLong(UNSETTLED) == 0) {
            master.setGlobal(PHASE, phase + 1);
        }
        return false;
    }

    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        out.append(value.getLong(0));
    }

    @Override
    public String spec() {
        return "wcc-afforest";
    }
}

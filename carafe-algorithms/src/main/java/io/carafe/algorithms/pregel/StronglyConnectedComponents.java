package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Aggregator;
import io.carafe.pregel.Combiner;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.List;
import java.util.function.IntFunction;

/**
 * Strongly connected components by colouring (forward min-label propagation, then a
 * backward sweep), repeated on what is left, with the master step switching phases:
 * <ol>
 * <li>Forward: each unassigned vertex takes as colour the smallest internal id that
 * reaches it through unassigned vertices (its own at the start).</li>
 * <li>Backward: a vertex whose colour is its own id is the root of a component; the
 * component is the vertices of that colour which reach the root, found by sending the
 * root's label back along in-edges through vertices of the same colour.</li>
 * </ol>
 * Internal ids follow original ids, so a root is the smallest original id of its
 * component, and that id is the component's label. The job ends when every vertex is
 * assigned.
 *
 * <p>Messages are combined: one record per target vertex a superstep, whatever its
 * in-degree ({@link #SMALLEST_KEY}). Forward, the key is the colour and the smallest wins.
 * Backward, a vertex t hears along its out-edges t → s only from vertices s of its phase,
 * and at the forward fixpoint colour(s) ≤ colour(t); so the largest colour t hears is its
 * own exactly when one of its own component reached it. The key is then the colour
 * negated (−colour − 1), and the smallest key carries the largest colour with its label.
 * Combined, the pages hold one message a vertex, not one an edge (the measured difference:
 * docs/measure/notebook.md).
 */
public final class StronglyConnectedComponents implements VertexProgram {
    public static final RecordLayout VALUE = RecordLayout.builder().addLong("colour").addLong("component").build();
    public static final long COLOUR = VALUE.offset("colour");
    public static final long COMPONENT = VALUE.offset("component");
    private static final RecordLayout MESSAGE = RecordLayout.builder().addLong("key").addLong("label").build();
    private static final long M_KEY = MESSAGE.offset("key");
    private static final long M_LABEL = MESSAGE.offset("label");
    private static final long UNASSIGNED = -1;
    // aggregators
    private static final int CHANGED = 0;
    private static final int LEFT = 1;
    // globals: the phase and the superstep it started in
    private static final int PHASE = 0;
    private static final int PHASE_START = 1;
    private static final long FORWARD = 0;
    private static final long BACKWARD = 1;

    /** The message of the smallest key, label and all: MIN over the key, carrying the rest of the record. */
    static final Combiner SMALLEST_KEY = new Combiner() {
        @Override
        public void identity(RecordView message) {
            message.setLong(M_KEY, Long.MAX_VALUE);
            message.setLong(M_LABEL, UNASSIGNED);
        }

        @Override
        public void combine(RecordView into, RecordView message) {
            if (message.getLong(M_KEY) < into.getLong(M_KEY)) {
                into.setLong(M_KEY, message.getLong(M_KEY));
                into.setLong(M_LABEL, message.getLong(M_LABEL));
            }
        }
    };

    @Override
    public Declaration declaration() {
        return Declaration.values(VALUE).messages(MESSAGE, SMALLEST_KEY).readingInEdges();
    }

    @Override
    public List<Aggregator> aggregators() {
        return List.of(Aggregator.sumLong(), Aggregator.sumLong());
    }

    @Override
    public int globals() {
        return 2;
    }

    @Override
    public void compute(Context ctx) {
        RecordView value = ctx.value();
        if (ctx.superstep() == 0) {
            value.setLong(COMPONENT, UNASSIGNED);
        }
        if (value.getLong(COMPONENT) != UNASSIGNED) {
            return; // assigned vertices stay silent; they still run, as every vertex must see each phase start
        }
        boolean first = ctx.superstep() == ctx.globalLong(PHASE_START);
        RecordView out = ctx.newMessage();
        if (ctx.globalLong(PHASE) == FORWARD) {
            long colour = first ? ctx.vertex() : value.getLong(COLOUR);
            if (!first && ctx.hasMessages()) {
                colour = Math.min(colour, ctx.message().getLong(M_KEY));
            }
            if (first || colour < value.getLong(COLOUR)) {
                value.setLong(COLOUR, colour);
                out.setLong(M_KEY, colour);
                ctx.sendToOutNeighbours(out);
                ctx.aggregate(CHANGED, 1L);
            }
        } else {
            long colour = value.getLong(COLOUR);
            long label = UNASSIGNED;
            if (first) {
                label = colour == ctx.vertex() ? ctx.originalId() : UNASSIGNED;
            } else if (ctx.hasMessages() && ctx.message().getLong(M_KEY) == backwardKey(colour)) {
                label = ctx.message().getLong(M_LABEL); // the largest colour heard is its own
            }
            if (label != UNASSIGNED) {
                value.setLong(COMPONENT, label);
                out.setLong(M_KEY, backwardKey(colour));
                out.setLong(M_LABEL, label);
                for (Edges e = ctx.inEdges(); e.next(); ) {
                    ctx.sendTo(e.target(), out);
                }
                ctx.aggregate(CHANGED, 1L);
                return;
            }
        }
        ctx.aggregate(LEFT, 1L);
    }

    /** A backward message's key: the larger the colour, the smaller the key. */
    private static long backwardKey(long colour) {
        return -colour - 1;
    }

    /** A phase ends when a superstep changed nothing (so nothing is in flight); the job when nothing is left. */
    @Override
    public boolean masterCompute(MasterContext master) {
        if (master.aggregatedLong(CHANGED) > 0) {
            return false;
        }
        if (master.aggregatedLong(LEFT) == 0) {
            return true;
        }
        master.setGlobal(PHASE, master.globalLong(PHASE) == FORWARD ? BACKWARD : FORWARD);
        master.setGlobal(PHASE_START, master.superstep() + 1);
        return false;
    }

    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        out.append(value.getLong(COMPONENT));
    }

    @Override
    public String spec() {
        return "scc";
    }

    /** The verifier: every vertex's component against Tarjan's ({@link References#strongComponents}). */
    public static Verdict verify(GraphFile g, long[] components, IntFunction<String> name) {
        return Verdict.sameLabels(References.strongComponents(g), components, name);
    }
}

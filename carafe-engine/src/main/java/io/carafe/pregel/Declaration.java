package io.carafe.pregel;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What a vertex program computes with, said in one place ({@link VertexProgram#declaration()}):
 * its value record; its messages (their record, how they combine, how vertices send them and
 * what an edge adds); and what {@code compute} reads besides its own vertex. The program says
 * what it computes, the engine decides from this how to run it: push or gather, what each
 * worker reads at setup, what it keeps in RStore. It is checked once, when a job starts, and
 * a send or read it does not allow fails saying which declaration it needs.
 *
 * <pre>{@code
 * // PageRank: a double a vertex; a share of it along every out-edge, summed, from nearly every vertex each superstep
 * Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.SUM).sendingAlongOutEdges().dense();
 * // BFS: the level; the smallest arriving counts, every sender of a superstep sends the same one, a reached vertex takes none
 * Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges()
 *         .sameValueEachSuperstep().accepting(level -> level.getLong(0) == Long.MAX_VALUE);
 * // SSSP: each out-neighbour receives the distance plus the edge's weight
 * Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.MIN).sendingAlongOutEdges().plusWeight();
 * // reads other vertices' edges, sends nothing
 * Declaration.values(RecordLayout.LONG).readingNeighbourhoods();
 * }</pre>
 *
 * Immutable: each method returns a new declaration (the receiver stays as it was).
 */
public final class Declaration {

    /** How a program's vertices send. */
    public enum Sending {
        /** Nothing: the engine sets up no mailboxes, and a send fails. What a program sends unless it declares messages. */
        NOTHING,
        /** Anything: to any vertex id, along out-edges or all edges, any number of times. */
        ANY,
        /**
         * At most one {@link VertexProgram.Context#sendToOutNeighbours} a vertex and superstep,
         * and no other send. With one double or long and a {@link DoubleCombiner} or {@link
         * LongCombiner}, the engine may then move one value per sending vertex and combine it
         * along in-edges ({@link Messaging#GATHER}) when the senders are many, and push when
         * they are few, choosing per superstep ({@link Messaging#HYBRID}).
         */
        ALONG_OUT_EDGES,
        /**
         * At most one {@link VertexProgram.Context#sendToAllNeighbours} a vertex and superstep,
         * and no other send, as label propagation's; gathered along in- and out-edges, so each
         * worker reads its vertices' in-edges at setup on a directed graph.
         */
        ALONG_ALL_EDGES;

        /** Whether a vertex sends one value at most once a superstep along its edges, and nothing else. */
        public boolean broadcasts() {
            return this == ALONG_OUT_EDGES || this == ALONG_ALL_EDGES;
        }
    }

    private RecordLayout value;
    private RecordLayout message;
    private Combiner combiner;
    private Sending sending;
    private boolean plusWeight;
    private boolean dense;
    private boolean sameValue;
    private Predicate<RecordView> accepting;
    private boolean otherValues;
    private boolean newerValues;
    private boolean neighbourhoods;
    private boolean inEdges;

    private Declaration(RecordLayout value) {
        this.value = value;
        this.sending = Sending.NOTHING;
    }

    /** A copy to change one thing in: a declaration, once returned, never changes. */
    private Declaration copy() {
        Declaration d = new Declaration(value);
        d.message = message;
        d.combiner = combiner;
        d.sending = sending;
        d.plusWeight = plusWeight;
        d.dense = dense;
        d.sameValue = sameValue;
        d.accepting = accepting;
        d.otherValues = otherValues;
        d.newerValues = newerValues;
        d.neighbourhoods = neighbourhoods;
        d.inEdges = inEdges;
        return d;
    }

    /** A program whose vertices each hold a {@code value} record (zeroed at the start) and send nothing, until said otherwise. */
    public static Declaration values(RecordLayout value) {
        return new Declaration(Objects.requireNonNull(value, "value"));
    }

    /** Messages of {@code message} records, sent anyhow ({@link Sending#ANY}) and each delivered: a vertex reads them all. */
    public Declaration messages(RecordLayout message) {
        return messages(message, null);
    }

    /**
     * Messages of {@code message} records, sent anyhow ({@link Sending#ANY}) unless declared
     * otherwise, and combined before delivery by {@code combiner} (null: each delivered): a
     * vertex reads one.
     */
    public Declaration messages(RecordLayout message, Combiner combiner) {
        Declaration d = copy();
        d.message = Objects.requireNonNull(message, "message");
        d.combiner = combiner;
        d.sending = sending == Sending.NOTHING ? Sending.ANY : sending;
        return d;
    }

    /** Each vertex sends at most once a superstep, along its out-edges, and nothing else ({@link Sending#ALONG_OUT_EDGES}). */
    public Declaration sendingAlongOutEdges() {
        return sending(Sending.ALONG_OUT_EDGES);
    }

    /** Each vertex sends at most once a superstep, along all its edges, and nothing else ({@link Sending#ALONG_ALL_EDGES}). */
    public Declaration sendingAlongAllEdges() {
        return sending(Sending.ALONG_ALL_EDGES);
    }

    private Declaration sending(Sending how) {
        Declaration d = copy();
        d.sending = how;
        return d;
    }

    /**
     * What an edge does to a message: each out-neighbour receives the value sent plus the
     * weight of the edge to it (1 on an unweighted graph), a shortest-path relaxation. For
     * one double with a {@link DoubleCombiner}, sent along out-edges.
     */
    public Declaration plusWeight() {
        Declaration d = copy();
        d.plusWeight = true;
        return d;
    }

    /**
     * Most vertices send in every superstep, as PageRank's do: the engine gathers every
     * superstep and sets up nothing for pushing, which would cost memory and setup time for
     * nothing.
     */
    public Declaration dense() {
        Declaration d = copy();
        d.dense = true;
        return d;
    }

    /**
     * Every vertex that sends in a superstep sends the same value (BFS: the next level), so a
     * receiver needs only to know whether any in-neighbour sent: a superstep that gathers stops
     * at a vertex's first in-neighbour that sent, a bottom-up BFS (Beamer et al.). A job whose
     * vertices send different values in one superstep fails, saying so.
     */
    public Declaration sameValueEachSuperstep() {
        Declaration d = copy();
        d.sameValue = true;
        return d;
    }

    /**
     * Which vertices would use messages, by their value (Ligra's {@code cond}): one that
     * would not gets none and is not woken by them, as a vertex BFS has reached, and a
     * superstep that gathers reads only the in-edges of vertices that accept. Asked for every
     * vertex at the start of each superstep after the first. Unless declared, every vertex accepts.
     */
    public Declaration accepting(Predicate<RecordView> accepts) {
        Declaration d = copy();
        d.accepting = Objects.requireNonNull(accepts, "accepts");
        return d;
    }

    /**
     * {@code compute} reads other vertices' values ({@link VertexProgram.Context#valueOf}), a
     * parent's parent say: each worker then writes all its values to RStore after every
     * superstep and reads every partition's back at the start of the next.
     */
    public Declaration readingOtherValues() {
        Declaration d = copy();
        d.otherValues = true;
        return d;
    }

    /**
     * As {@link #readingOtherValues}, but a read may also see a value changed earlier in the
     * same superstep: each read gives the vertex's value as the previous superstep left it or
     * as this one has changed it so far, whichever the engine has at hand (a worker's own
     * vertices' and, among workers that are threads of one process, each other's). For a
     * program that reaches the same fixpoint from either, because its values only move one
     * way towards it, as hooking's parents move only towards their roots: newer values get
     * there in fewer supersteps (Gauss–Seidel's sweep rather than Jacobi's). The supersteps a
     * job takes then depend on how its workers run; its answer must not. Values of one long
     * or one double.
     */
    public Declaration readingNewerValues() {
        Declaration d = readingOtherValues();
        d.newerValues = true;
        return d;
    }

    /**
     * {@code compute} reads other vertices' edges ({@link VertexProgram.Context#outNeighbours},
     * {@link VertexProgram.Context#inNeighbours}): each worker reads every vertex's edge
     * offsets (one copy a process), and any vertex's lists on demand through a cache of at
     * most {@code --neighbourhood-cache} bytes.
     */
    public Declaration readingNeighbourhoods() {
        Declaration d = copy();
        d.neighbourhoods = true;
        return d;
    }

    /** {@code compute} reads its vertex's in-edges ({@link VertexProgram.Context#inEdges}): each worker reads them (stored with a directed graph) at setup. */
    public Declaration readingInEdges() {
        Declaration d = copy();
        d.inEdges = true;
        return d;
    }

    /** What a vertex holds. */
    public RecordLayout value() {
        return value;
    }

    /** What a message holds; null for a program that sends nothing. */
    public RecordLayout message() {
        return message;
    }

    /** Bytes of a message record; 0 for a program that sends nothing. */
    public int messageBytes() {
        return message == null ? 0 : message.bytes();
    }

    /** Combines messages to one vertex before delivery; null: each delivered. */
    public Combiner combiner() {
        return combiner;
    }

    public Sending sending() {
        return sending;
    }

    /** Whether each edge adds its weight to what is sent along it. */
    public boolean addsWeight() {
        return plusWeight;
    }

    /** Whether most vertices send in every superstep. */
    public boolean isDense() {
        return dense;
    }

    /** Whether every vertex that sends in a superstep sends the same value. */
    public boolean sendsSameValue() {
        return sameValue;
    }

    /** Whether a vertex holding {@code value} takes messages. */
    public boolean accepts(RecordView value) {
        return accepting == null || accepting.test(value);
    }

    /** Whether every vertex takes messages, whatever its value (nothing declared by {@link #accepting}). */
    public boolean acceptsAll() {
        return accepting == null;
    }

    public boolean readsOtherValues() {
        return otherValues;
    }

    /** Whether a read of another vertex's value may see this superstep's ({@link #readingNewerValues}). */
    public boolean readsNewerValues() {
        return newerValues;
    }

    public boolean readsNeighbourhoods() {
        return neighbourhoods;
    }

    /** Whether each worker reads its vertices' in-edges at setup: declared, or needed to send along all edges. */
    public boolean readsInEdges() {
        return inEdges || sending == Sending.ALONG_ALL_EDGES;
    }

    /** Whether its messages can travel as one value per sending vertex: broadcast, one double or long, combined by its type's combiner. */
    boolean broadcastsOneValue() {
        boolean doubles = combiner instanceof DoubleCombiner && message.isSingle(RecordLayout.Type.DOUBLE);
        boolean longs = combiner instanceof LongCombiner && message.isSingle(RecordLayout.Type.LONG);
        return sending.broadcasts() && (doubles || longs && !plusWeight);
    }

    /** Whether its parts fit together; what does not is said in the API's words before any worker starts. */
    Declaration check() {
        if (message == null && sending != Sending.NOTHING) {
            throw new IllegalArgumentException("this program sends " + said(sending) + " but declares no messages: add Declaration.messages");
        }
        if (combiner instanceof DoubleCombiner && !message.isSingle(RecordLayout.Type.DOUBLE)
                || combiner instanceof LongCombiner && !message.isSingle(RecordLayout.Type.LONG)) {
            throw new IllegalArgumentException("a " + kind(combiner) + " combines messages of one field of its type;"
                    + " this program's messages are " + message + ": write a Combiner over the record");
        }
        if (plusWeight && !(sending == Sending.ALONG_OUT_EDGES && combiner instanceof DoubleCombiner && message.isSingle(RecordLayout.Type.DOUBLE))) {
            throw new IllegalArgumentException("Declaration.plusWeight adds each edge's weight to a message of one double sent along out-edges:"
                    + " this program's messages are " + message + " with " + (combiner == null ? "no combiner" : kind(combiner))
                    + ", sent " + said(sending) + "; give it one double, a DoubleCombiner and sendingAlongOutEdges, or send with sendTo");
        }
        if ((sameValue || dense) && !sending.broadcasts()) {
            throw new IllegalArgumentException("Declaration." + (sameValue ? "sameValueEachSuperstep" : "dense") + " is for a program that"
                    + " sends along its edges once a superstep (sendingAlongOutEdges or sendingAlongAllEdges); this one sends " + said(sending));
        }
        if (newerValues && !value.isSingle(RecordLayout.Type.LONG) && !value.isSingle(RecordLayout.Type.DOUBLE)) {
            throw new IllegalArgumentException("Declaration.readingNewerValues shows each value as one 8-byte store, which a reader sees whole;"
                    + " this program's values are " + value + ": give it values of one long or one double, or read with readingOtherValues");
        }
        if (sameValue && plusWeight) {
            throw new IllegalArgumentException("Declaration.sameValueEachSuperstep: a receiver gets the one value sent, but plusWeight adds"
                    + " each edge's weight to it");
        }
        return this;
    }

    /** What a combiner is, as a user named its type (an enum constant's own class has no name). */
    private static String kind(Combiner c) {
        return c instanceof DoubleCombiner ? "DoubleCombiner" : c instanceof LongCombiner ? "LongCombiner" : "Combiner";
    }

    private static String said(Sending how) {
        return how.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    @Override
    public String toString() {
        return "values " + value + ", " + (message == null ? "no messages" : "messages " + message + (combiner == null ? "" : " combined")
                + ", sent " + said(sending) + (plusWeight ? " plus weights" : "") + (dense ? ", dense" : "") + (sameValue ? ", one value a superstep" : ""))
                + (accepting == null ? "" : ", accepting some") + (newerValues ? ", reads newer values" : otherValues ? ", reads other values" : "")
                + (neighbourhoods ? ", reads neighbourhoods" : "") + (inEdges ? ", reads in-edges" : "");
    }
}

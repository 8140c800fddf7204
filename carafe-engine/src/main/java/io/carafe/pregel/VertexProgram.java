package io.carafe.pregel;

import io.carafe.graph.Neighbours;

import java.util.List;
import java.util.function.Supplier;

/**
 * A Pregel vertex program. It says what it computes with in one {@link Declaration}: each
 * vertex holds a value record (zeroed at the start), messages are records, combined or not,
 * sent as the declaration allows; and what {@code compute} reads besides its own vertex.
 * {@link #compute} runs for every vertex in superstep 0 and afterwards for every vertex that
 * has messages or has not voted to halt; messages sent in superstep k arrive in superstep
 * k+1. With a combiner a vertex sees one combined message, without one it reads them all.
 * Aggregators are global sums, minima or maxima, read by {@link #masterCompute} after each
 * superstep and by every vertex in the next; the master step may set global values every
 * vertex reads next superstep, and decides when to stop. The engine decides how to run the
 * program from its declaration ({@link Messaging}).
 *
 * <pre>{@code
 * // every vertex learns the largest original id among its in-neighbours
 * public final class MaxInNeighbour implements VertexProgram {
 *     public Declaration declaration() {
 *         return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MAX).sendingAlongOutEdges();
 *     }
 *     public void compute(Context ctx) {
 *         if (ctx.superstep() == 0) {
 *             ctx.value().setLong(0, -1);
 *             ctx.sendToOutNeighbours(ctx.originalId());
 *         } else {
 *             ctx.value().setLong(0, ctx.message().getLong(0));
 *         }
 *         ctx.voteToHalt();
 *     }
 * }
 * }</pre>
 */
public interface VertexProgram {

    void compute(Context ctx);

    /**
     * What the program computes with: its records, its messages and how they travel, what it
     * reads ({@link Declaration}). Asked once a job. Unless the program says otherwise: a
     * double a vertex, and messages of one double, sent anyhow and each delivered.
     */
    default Declaration declaration() {
        return Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE);
    }

    /**
     * The vertices (internal ids) that compute in superstep 0, or null (the default) for all
     * of them. A search from a source declares it: every other vertex starts halted, holding
     * {@link #initialValue}, until a message wakes it, so superstep 0 costs the sources, not
     * a call of {@code compute} for every vertex.
     */
    default int[] startVertices() {
        return null;
    }

    /**
     * Writes the value that every vertex outside {@link #startVertices} starts with (BFS: not
     * reached); the value starts zeroed, and stays so unless this sets it.
     */
    default void initialValue(RecordView value) {
    }

    /**
     * Bytes of memory the program holds itself in each worker at its peak, beyond what the
     * engine keeps for it (values, messages, edges), on a graph of {@code vertices} and
     * {@code edges} cut into {@code workers} partitions: what {@code --estimate} adds for
     * it. 0 unless the program says (a program that keeps an array per vertex says so).
     */
    default long workerBytes(long vertices, long edges, int workers) {
        return 0;
    }

    /**
     * Bytes of memory the program's workers in one process share at its peak ({@link
     * Context#sharedInProcess}), on a graph of {@code vertices} and {@code edges}: what
     * {@code --estimate} adds once for each process that runs workers. 0 unless the program says.
     */
    default long processBytes(long vertices, long edges) {
        return 0;
    }

    /**
     * The messages the program's busiest superstep sends in all, on a graph of {@code
     * vertices} and {@code edges} cut into {@code workers} partitions, for a program that
     * sends far fewer than the engine assumes (after combining, one to each vertex from each
     * worker; without, one along each edge): what {@code --estimate} sizes the mailboxes to.
     * An estimate, not a bound: {@code --max-memory} measures what a job holds, whatever this
     * says. -1 (the default): the engine's figure.
     */
    default long busiestSuperstepMessages(long vertices, long edges, int workers) {
        return -1;
    }

    default List<Aggregator> aggregators() {
        return List.of();
    }

    /** Global values the master step sets ({@link MasterContext#setGlobal}) and every vertex reads. */
    default int globals() {
        return 0;
    }

    /**
     * A one-line description from which a worker in another process can build this program
     * (see the algorithms' {@code Programs}); null for programs that only run as threads.
     */
    default String spec() {
        return null;
    }

    /** Runs on the coordinator after each superstep; true stops the job. */
    default boolean masterCompute(MasterContext master) {
        return false;
    }

    /** Appends a vertex's value as text, for -o; the fields separated by spaces unless the program knows better. */
    default void formatValue(RecordView value, StringBuilder out) {
        value.appendTo(out);
    }

    /** The out-edges or in-edges of the vertex being computed: {@code while (e.next()) use(e.target(), e.weight());}. */
    interface Edges {
        /** Moves to the next edge; false after the last. */
        boolean next();

        /** Internal id of the other end. */
        int target();

        /** The edge's weight (1 on an unweighted graph). */
        double weight();
    }

    /** What a vertex sees during {@link #compute}. Reused for every vertex: do not keep it or what it returns. */
    interface Context {
        long superstep();

        long vertexCount();

        long edgeCount();

        /** Internal id of this vertex: dense, 0..vertexCount-1, in the order of the original ids. */
        int vertex();

        /** The id this vertex had in the imported file. */
        long originalId();

        int outDegree();

        /** Needs {@link Declaration#readingInEdges()}. */
        int inDegree();

        /** Whether the graph is directed; on an undirected one {@link #inEdges()} are the out-edges. */
        boolean directed();

        /** This vertex's value: read and write it in place. */
        RecordView value();

        /**
         * Vertex {@code vertex}'s value as the previous superstep left it (in superstep 0, as
         * every value starts: zero), whichever partition holds it; this vertex's own too,
         * unchanged by what {@link #value()} wrote since. Needs {@link Declaration#readingOtherValues()};
         * with {@link Declaration#readingNewerValues()} it may instead be the value as this
         * superstep has changed it so far. The same read-only flyweight each call.
         */
        RecordView valueOf(int vertex);

        /** {@code valueOf(vertex).getLong(0)} for values of one long, faster. */
        long longValueOf(int vertex);

        /** Whether messages arrived for this vertex. */
        boolean hasMessages();

        /** Messages that arrived: 0 or 1 with a combiner. */
        int messageCount();

        /** Message {@code i} of {@link #messageCount()}; the same flyweight each call. */
        RecordView message(int i);

        /** The combined message (the combiner's identity if none came); only with a combiner. */
        RecordView message();

        /** The combined message when messages are one double with a {@link DoubleCombiner}: {@code message().getDouble(0)}, faster. */
        double messageDouble();

        /** The combined message when messages are one long with a {@link LongCombiner}. */
        long messageLong();

        /**
         * Any vertex's out-neighbours, ascending; needs {@link Declaration#readingNeighbourhoods()}. The same
         * flyweight each call, re-pointed; what {@link #inNeighbours} returned stays valid.
         */
        Neighbours outNeighbours(int vertex);

        /** Any vertex's in-neighbours, ascending (out-neighbours on an undirected graph); needs {@link Declaration#readingNeighbourhoods()}. */
        Neighbours inNeighbours(int vertex);

        /** Any vertex's out-degree; needs {@link Declaration#readingNeighbourhoods()}. */
        int outDegreeOf(int vertex);

        /** Any vertex's in-degree (out-degree on an undirected graph); needs {@link Declaration#readingNeighbourhoods()}. */
        int inDegreeOf(int vertex);

        /** Out-edges of this vertex; restarts at the first edge each call. */
        Edges outEdges();

        /** In-edges of this vertex ({@link Edges#target()} is the source); needs {@link Declaration#readingInEdges()}. */
        Edges inEdges();

        /** A cleared message to fill and send; the same flyweight each call. */
        RecordView newMessage();

        /**
         * What this job's workers in this process share: made by {@code make} for the first
         * of them to ask, while the others that ask wait for it (the job's superstep timeout
         * bounds that wait; a make that fails leaves the next to ask to try), then the same object for
         * all of them until the job ends. For what a program builds once and only reads
         * after (Triangles' oriented graph): one copy a process, not one a worker. A job's
         * workers in other processes each make their own, so it must depend only on the
         * job. One object a job: a second call with another {@code type} is refused.
         */
        <T> T sharedInProcess(Class<T> type, Supplier<? extends T> make);

        void sendTo(int vertex, RecordView message);

        /** Sends {@code message} along every out-edge. */
        void sendToOutNeighbours(RecordView message);

        /**
         * Sends {@code message} along every out-edge and every in-edge: on a directed graph a
         * neighbour joined both ways gets it twice. On a graph imported undirected, the same
         * as {@link #sendToOutNeighbours}. Needs {@link Declaration#readingInEdges()} on a directed graph.
         */
        void sendToAllNeighbours(RecordView message);

        /** For messages of one double: {@code sendTo(vertex, newMessage() with value)}. */
        void sendTo(int vertex, double value);

        void sendToOutNeighbours(double value);

        /** For messages of one long. */
        void sendTo(int vertex, long value);

        void sendToOutNeighbours(long value);

        void voteToHalt();

        void aggregate(int index, double value);

        void aggregate(int index, long value);

        /** Aggregator {@code index}'s global value from the previous superstep. */
        double aggregatedDouble(int index);

        long aggregatedLong(int index);

        /** Global value {@code index} as the master step last set it (0 until then). */
        double globalDouble(int index);

        long globalLong(int index);
    }

    /** What the coordinator sees after a superstep. */
    interface MasterContext {
        /** The superstep just finished. */
        long superstep();

        long vertexCount();

        long edgeCount();

        /** Global value of aggregator {@code index} in the superstep just finished. */
        double aggregatedDouble(int index);

        long aggregatedLong(int index);

        /** Sets global value {@code index} for the next superstep and after. */
        void setGlobal(int index, double value);

        void setGlobal(int index, long value);

        /** Global value {@code index} as last set (0 until then). */
        double globalDouble(int index);

        long globalLong(int index);

        /** Vertices that did not vote to halt. */
        long activeVertices();

        long messagesSent();
    }
}

package io.carafe.pregel;

/**
 * A Pregel vertex program over primitives: each vertex holds a double value and receives
 * double messages. {@link #compute} runs for every vertex in superstep 0 and afterwards
 * for every vertex that has messages or has not voted to halt. Messages sent in superstep
 * k arrive in superstep k+1. With a {@link #combiner()}, a vertex sees one combined
 * message. Aggregators are global double sums, readable in the next superstep and by
 * {@link #masterCompute}, which decides when to stop.
 */
public interface VertexProgram {

    void compute(Context ctx);

    /** Combines messages before they are written; null to deliver each message. */
    default Combiner combiner() {
        return null;
    }

    /**
     * True when every message this program sends is {@link Context#sendToNeighbours} (one
     * value along every out-edge) and it has a {@link #combiner()}: one value per sending
     * vertex then stands for all its messages, and the engine may move those and let each
     * receiver combine along its in-edges ({@link Messaging#GATHER}). Such a program must
     * not call {@link Context#sendToNeighboursPlusWeight}.
     */
    default boolean broadcastsToNeighbours() {
        return false;
    }

    /** Number of global sum aggregators. */
    default int aggregators() {
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

    /** What a vertex sees during {@link #compute}. Reused for every vertex: do not keep it. */
    interface Context {
        long superstep();

        long vertexCount();

        /** Internal id of this vertex. */
        int vertex();

        int outDegree();

        double value();

        void setValue(double value);

        /** Whether messages arrived for this vertex. */
        boolean hasMessages();

        /** The combined message; only with a {@link #combiner()}. */
        double message();

        /** Messages without a combiner: {@code messageCount()} of them, read with {@link #messageAt(int)}. */
        int messageCount();

        double messageAt(int i);

        /** Sends {@code value} along every out-edge. */
        void sendToNeighbours(double value);

        /** Sends {@code value(edge weight)} along every out-edge: value + weight for shortest paths. */
        void sendToNeighboursPlusWeight(double value);

        void voteToHalt();

        /** Adds to global aggregator {@code index} for this superstep. */
        void aggregate(int index, double value);

        /** The global value of aggregator {@code index} from the previous superstep. */
        double aggregated(int index);
    }

    /** What the coordinator sees after a superstep. */
    interface MasterContext {
        /** The superstep just finished. */
        long superstep();

        long vertexCount();

        /** Global value of aggregator {@code index} in the superstep just finished. */
        double aggregated(int index);

        /** Vertices that did not vote to halt. */
        long activeVertices();

        long messagesSent();
    }
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * How one worker's messages travel: what a vertex receives and where what it sends goes.
 * A job's {@link Messaging} picks one implementation for all its supersteps, as Gemini
 * keeps its sparse and dense sides as separate functions: {@link PushChannel} (mailboxes),
 * {@link GatherChannel} (one value per sender, combined along in-edges), {@link HybridChannel}
 * (gathered, then pushed or published as each superstep's senders decide) and
 * {@link NoMessages}. The superstep loop and the vertex context never ask which.
 *
 * <p>The calls come in this order: {@link #setUp} and then {@link #join} once; each
 * superstep {@link #receive}, the per-vertex reads and sends while vertices compute, then
 * {@link #finish}. Messages go by local vertex ({@code vertex - from}) on the receiving side.
 */
interface MessageChannel extends AutoCloseable {

    /**
     * Setup round: allocates what the other partitions will read and names it in this
     * worker's part of the job directory (the caller writes its row).
     */
    void setUp();

    /** Round 1: every partition has named its containers, so this maps theirs. */
    void join();

    /** Superstep start: reads and combines (or groups) what was sent to this partition in the superstep before. */
    void receive(long superstep);

    /** Bit u set when local vertex u has messages this superstep (none in superstep 0). */
    long[] arrivals();

    /** How many messages local vertex {@code local}, which has some, received: 1 when they are combined. */
    int messageCount(int local);

    /** Message {@code i} of local vertex {@code local}, which has more than {@code i}. */
    RecordView message(int local, int i);

    /** The combined message of local vertex {@code local}: the combiner's identity when it has none. */
    RecordView combined(int local);

    /** The combined message of one double of local vertex {@code local}, which has one. */
    double combinedDouble(int local);

    /** The combined message of one long of local vertex {@code local}, which has one. */
    long combinedLong(int local);

    /** Sends a message to vertex {@code target} (programs that declare {@link Declaration.Sending#ANY}). */
    void sendTo(int target, MemorySegment record, long recordAt);

    /**
     * Sends a message along local vertex {@code local}'s out-edges, and its in-edges too when
     * {@code toAll} on a directed graph; returns how many messages that stands for.
     */
    long sendAlongEdges(int local, MemorySegment record, long recordAt, boolean toAll);

    /**
     * {@link #sendAlongEdges} along the out-edges for a message that is one 8-byte value (a
     * double's raw bits or a long): PageRank's send, once per vertex, without a record.
     */
    long sendValue(int local, long bits);

    /**
     * After every vertex computed: sends what the superstep produced on its way for the next
     * one to {@link #receive}; {@code messages} is how many the vertices sent. Returns whether
     * the superstep went dense (its senders' values published for every partition to gather).
     */
    boolean finish(long messages);

    /** How many checkpoint sections {@link #sent} returns: a checkpoint of another messaging has another count. */
    int checkpointSections();

    /** For a checkpoint that superstep {@code next} starts from: what this worker sent for {@code next} to read. */
    List<MemorySegment> sent(long next);

    /** Restarting from a checkpoint: sends {@link #sent}'s sections again, for {@code first} to read. */
    void resend(long first, List<MemorySegment> sections);

    @Override
    void close();
}

package io.carafe.pregel;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * One worker's side of {@link Messaging#PUSH}: its outbox row and inbox column of the
 * mailbox grid. Messages sent in superstep s go to the containers of parity (s+1) mod 2,
 * which the receivers read in s+1 while the senders write the other parity.
 * {@link CombiningMailboxes} combine per target vertex as they go (a program with a
 * combiner); {@link PackedMailboxes} keep every message as a packed record in fixed-size
 * pages. Local vertices are {@code vertex - from} on the receiving side.
 */
interface Mailboxes extends AutoCloseable {

    /** Setup: allocates this worker's outboxes and names them in its row of the directory; the caller writes the row. */
    void allocate();

    /** Round 1: maps the inbox column, once every worker named its outboxes. */
    void join();

    /** Superstep start: reads what was sent to this partition in the superstep before. */
    void read(long superstep);

    /** Bit u set when local vertex u has messages this superstep. */
    long[] messageBits();

    /** How many messages local vertex {@code local} received: 1 when they are combined. */
    int messageCount(int local);

    /** Message {@code i} of local vertex {@code local}; the combined message (or the identity) when they are combined. */
    RecordView message(int local, int i);

    /** A message of superstep {@code superstep} to vertex {@code target}. */
    void deliver(long superstep, int target, MemorySegment record, long recordAt);

    /** After compute: writes what superstep {@code superstep} sent, for the next to read. */
    void write(long superstep);

    /** For a checkpoint: what this worker sent for {@code superstep} to read, one section per partition: a count and the messages. */
    List<MemorySegment> sent(long superstep);

    /** Restarting from a checkpoint: sends {@link #sent}'s sections again, for {@code superstep} to read. */
    void resend(long superstep, List<MemorySegment> sections);

    @Override
    void close();
}

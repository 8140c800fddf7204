package io.carafe.pregel;

/**
 * How messages travel between partitions. Both deliver the same combined messages; they
 * differ in what crosses RStore and in what each edge costs.
 */
public enum Messaging {
    /**
     * Senders combine a message per out-edge into their outbox row (one message per target
     * vertex with a combiner) and receivers read their inbox column. Suits every program,
     * and programs whose active vertices are few.
     */
    PUSH,
    /**
     * Each partition writes one value per sending vertex; receivers read all of them and
     * combine along their in-edges, built once at setup (a pull-style SpMV, as GAP's
     * {@code pr_spmv}). Only for programs whose sends are
     * {@link VertexProgram.Sends#OUT_NEIGHBOURS_ONCE} of one double with a
     * {@link DoubleCombiner}; suits programs where most
     * vertices send every superstep, such as PageRank.
     */
    GATHER,
    /** GATHER when the program allows it, PUSH otherwise. */
    AUTO;

    /** The mode a job runs in, or an error naming why the program cannot run in the one asked for. */
    Messaging resolve(VertexProgram program) {
        boolean canGather = program.sends() == VertexProgram.Sends.OUT_NEIGHBOURS_ONCE && program.combiner() instanceof DoubleCombiner
                && program.messageLayout().isSingle(RecordLayout.Type.DOUBLE);
        return switch (this) {
            case PUSH -> PUSH;
            case AUTO -> canGather ? GATHER : PUSH;
            case GATHER -> {
                if (!canGather) {
                    throw new IllegalArgumentException("--messaging gather needs a program that sends one double along its out-edges at most"
                            + " once a superstep (Sends.OUT_NEIGHBOURS_ONCE) with a DoubleCombiner, as PageRank does; use push or auto for this one");
                }
                yield GATHER;
            }
        };
    }
}

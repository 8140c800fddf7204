package io.carafe.pregel;

import java.util.Locale;

/**
 * How messages travel between partitions. All deliver the same combined messages; they
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
     * combine along their in-edges (a pull-style SpMV, as GAP's {@code pr_spmv}). Only for
     * programs that broadcast one value ({@link Declaration.Sending#broadcasts}); suits programs where most vertices send
     * every superstep, such as PageRank.
     */
    GATHER,
    /**
     * Sparse or dense per superstep and partition, as Ligra's and Gemini's push/pull: each
     * partition first records its senders' values as {@link #GATHER} would, then, if they
     * send along more than a hundredth of its out-edges, publishes them (dense); otherwise
     * it pushes them along its senders' out-edges through the mailboxes (sparse) and
     * publishes nothing. Receivers combine both. Only for programs that broadcast; suits
     * programs whose frontier grows and shrinks, such as BFS.
     */
    HYBRID,
    /**
     * GATHER for a program whose vertices mostly all send ({@link Declaration#dense}),
     * HYBRID for another that broadcasts one value, PUSH otherwise.
     */
    AUTO;

    /**
     * Hybrid: a partition whose senders send along more than 1/DENSE_FRACTION of its
     * out-edges publishes them (dense); fewer are pushed (sparse). Ligra's threshold is
     * |E|/20, but here a pushed message (its edge read, combining, pages) costs about a
     * hundred times a gathered in-edge, so the balance lies near |E|/100, as BFS and SSSP
     * measured (docs/measure/notebook.md, "Sparse supersteps that read their senders'
     * lists, and the dense threshold").
     */
    public static final int DENSE_FRACTION = 100;

    /** The mode a job runs in, or an error naming why the program cannot run in the one asked for. */
    Messaging resolve(Declaration declared) {
        boolean broadcasts = declared.broadcastsOneValue();
        return switch (this) {
            case PUSH -> PUSH;
            case AUTO -> !broadcasts ? PUSH : declared.isDense() ? GATHER : HYBRID;
            case GATHER, HYBRID -> {
                if (!broadcasts) {
                    throw new IllegalArgumentException("PregelJob.Options.messaging " + name().toLowerCase(Locale.ROOT) + " needs a program that sends"
                            + " one double or one long along its out-edges (or all its edges) at most once a superstep (Declaration.sendingAlongOutEdges,"
                            + " sendingAlongAllEdges) with a DoubleCombiner or LongCombiner, as PageRank, BFS and WCC do; use push or auto for this one");
                }
                yield this;
            }
        };
    }
}

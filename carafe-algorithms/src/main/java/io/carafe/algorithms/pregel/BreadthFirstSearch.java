package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.LongCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.RecordView;
import io.carafe.pregel.VertexProgram;

import java.util.function.IntFunction;

/**
 * Breadth-first search levels as LDBC Graphalytics defines them: the number of out-edges
 * on a shortest path from the source, {@link Long#MAX_VALUE} where unreachable. A vertex
 * reached for the first time sends its depth + 1 along its out-edges, once.
 */
public final class BreadthFirstSearch implements VertexProgram {
    public static final long UNREACHED = Long.MAX_VALUE;
    private final int source;

    public BreadthFirstSearch(int source) {
        this.source = source;
    }

    /**
     * A vertex sends its level once, along its out-edges, when first reached: the engine may
     * then push or gather, superstep by superstep. Every vertex reached in a superstep sends
     * the same next level, so one sending in-neighbour is enough (bottom-up when gathered). A
     * vertex reached already has its level: later messages cannot change it, so it takes none.
     */
    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges()
                .sameValueEachSuperstep().accepting(depth -> depth.getLong(0) == UNREACHED);
    }

    /** The search starts at the source alone; every other vertex starts unreached and halted. */
    @Override
    public int[] startVertices() {
        return new int[] {source};
    }

    @Override
    public void initialValue(RecordView depth) {
        depth.setLong(0, UNREACHED);
    }

    @Override
    public void compute(Context ctx) {
        RecordView depth = ctx.value();
        if (ctx.superstep() == 0) { // the source (and every vertex, under a wrapper that does not pass startVertices on)
            depth.setLong(0, ctx.vertex() == source ? 0 : UNREACHED);
            if (ctx.vertex() == source) {
                ctx.sendToOutNeighbours(1L);
            }
        } else if (depth.getLong(0) == UNREACHED) {
            depth.setLong(0, ctx.message().getLong(0));
            ctx.sendToOutNeighbours(depth.getLong(0) + 1);
        }
        ctx.voteToHalt();
    }

    /** Unreachable as {@code inf}, as carafe dijkstra and bfs write it (LDBC's files say 9223372036854775807). */
    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        long depth = value.getLong(0);
        if (depth == UNREACHED) {
            out.append("inf");
        } else {
            out.append(depth);
        }
    }

    @Override
    public String spec() {
        return "bfs source=" + source;
    }

    /**
     * The verifier of BFS depths from {@code source}, whichever kernel found them (this
     * program, the direction-optimizing and online searches, Δ-stepping counting hops):
     * every vertex's depth, -1 where unreached, against a textbook BFS's ({@link
     * References#bfsDepths}).
     */
    public static Verdict verify(GraphFile g, int source, int[] depth, IntFunction<String> name) {
        int[] want = References.bfsDepths(g, source);
        for (int v = 0; v < want.length; v++) {
            if (want[v] != depth[v]) {
                return Verdict.difference("vertex " + name.apply(v) + ": depth " + depth[v] + ", a textbook BFS says " + want[v]);
            }
        }
        return Verdict.agreement("every depth matches an independent BFS");
    }
}

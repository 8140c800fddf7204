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
 * Weakly connected components by label propagation (HashMin): every vertex starts with
 * its own original id as label and adopts the smallest label it hears of from any
 * neighbour, in- or out- (direction is ignored). A component's label is its smallest
 * original id.
 */
public final class ConnectedComponents implements VertexProgram {

    @Override
    public Declaration declaration() {
        return Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongAllEdges();
    }

    /** One label a superstep to every neighbour: the engine may push or gather it, superstep by superstep. */
    @Override
    public void compute(Context ctx) {
        RecordView label = ctx.value();
        if (ctx.superstep() == 0) {
            label.setLong(0, ctx.originalId());
            send(ctx, ctx.originalId());
        } else if (ctx.message().getLong(0) < label.getLong(0)) {
            label.setLong(0, ctx.message().getLong(0));
            send(ctx, label.getLong(0));
        }
        ctx.voteToHalt();
    }

    private static void send(Context ctx, long label) {
        RecordView m = ctx.newMessage();
        m.setLong(0, label);
        ctx.sendToAllNeighbours(m);
    }

    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        out.append(value.getLong(0));
    }

    @Override
    public String spec() {
        return "wcc";
    }

    /**
     * The verifier of weakly connected components, whichever kernel found them (this
     * program, {@link AfforestComponents}, the resident {@code Afforest}): every vertex's
     * label, the smallest original id in its component, against union-find's ({@link
     * References#weakComponents}). {@code name} says how a vertex is called.
     */
    public static Verdict verify(GraphFile g, long[] labels, IntFunction<String> name) {
        return Verdict.sameLabels(References.weakComponents(g), labels, name);
    }
}

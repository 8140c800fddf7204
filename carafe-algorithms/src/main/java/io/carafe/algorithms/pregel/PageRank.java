package io.carafe.algorithms.pregel;

import io.carafe.algorithms.references.References;
import io.carafe.algorithms.references.Verdict;
import io.carafe.importer.GraphFile;
import io.carafe.pregel.Aggregator;
import io.carafe.pregel.Declaration;
import io.carafe.pregel.DoubleCombiner;
import io.carafe.pregel.RecordLayout;
import io.carafe.pregel.VertexProgram;

import java.util.List;

/**
 * PageRank as a vertex program. Superstep 0 sets every rank to 1/N; superstep k ≥ 1
 * computes PR_k(v) = (1−d)/N + d·(Σ_{u→v} PR_{k−1}(u)/out(u) + D_{k−1}/N), where D is the
 * rank held by dangling vertices (no out-edges), spread uniformly so the ranks keep
 * summing to 1 (the LDBC Graphalytics definition). With {@code dropDangling} that mass is
 * lost instead, as in the classic Pregel paper. Messages: rank/out-degree, summed by the
 * combiner. Aggregators: 0 = dangling rank, 1 = L1 change of the superstep. Global 0: the
 * term every vertex shares, (1−d)/N + d·D/N, which the master step computes once a
 * superstep, so a vertex computes PR_k(v) = shared + d·Σ without dividing for it twice
 * (measured faster: docs/measure/notebook.md).
 * Stops after {@code iterations} updates, or earlier once the L1 change falls below
 * {@code tolerance} (0 turns that off).
 *
 * <p>Verified ({@link #largestDifference}, {@link #verdict}) against plain power iteration;
 * the pull kernel on threads ({@link io.carafe.algorithms.resident.PullPageRank}) computes
 * the same ranks and is verified the same way.
 */
public final class PageRank implements VertexProgram {
    static final int DANGLING = 0;
    static final int RESIDUAL = 1;
    static final int SHARED = 0; // the global holding the shared term

    private final double damping;
    private final int iterations;
    private final double tolerance;
    private final boolean dropDangling;

    public PageRank(double damping, int iterations, double tolerance, boolean dropDangling) {
        if (damping < 0 || damping > 1) {
            throw new IllegalArgumentException("PageRank.damping must be in [0, 1], was " + damping);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("PageRank needs at least one iteration, was " + iterations);
        }
        if (tolerance < 0) {
            throw new IllegalArgumentException("PageRank.tolerance must be >= 0, was " + tolerance);
        }
        this.damping = damping;
        this.iterations = iterations;
        this.tolerance = tolerance;
        this.dropDangling = dropDangling;
    }

    @Override
    public void compute(Context ctx) {
        double n = ctx.vertexCount();
        double rank;
        if (ctx.superstep() == 0) {
            rank = 1.0 / n;
        } else {
            double incoming = ctx.hasMessages() ? ctx.messageDouble() : 0;
            rank = ctx.globalDouble(SHARED) + damping * incoming;
            ctx.aggregate(RESIDUAL, Math.abs(rank - ctx.value().getDouble(0)));
        }
        ctx.value().setDouble(0, rank);
        if (ctx.superstep() < iterations) {
            int degree = ctx.outDegree();
            if (degree > 0) {
                ctx.sendToOutNeighbours(rank / degree);
            } else {
                ctx.aggregate(DANGLING, rank);
            }
        } else {
            ctx.voteToHalt();
        }
    }

    @Override
    public Declaration declaration() {
        // every vertex sends its share along its out-edges every superstep: gathered
        return Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.SUM).sendingAlongOutEdges().dense();
    }

    @Override
    public String spec() {
        return "pagerank damping=" + damping + " iterations=" + iterations + " tolerance=" + tolerance
                + " dangling=" + (dropDangling ? "drop" : "spread");
    }

    @Override
    public List<Aggregator> aggregators() {
        return List.of(Aggregator.sumDouble(), Aggregator.sumDouble());
    }

    @Override
    public int globals() {
        return 1;
    }

    /** Sets the next superstep's {@link #SHARED} term from this one's dangling rank. */
    @Override
    public boolean masterCompute(MasterContext master) {
        double n = master.vertexCount();
        double dangling = dropDangling ? 0 : master.aggregatedDouble(DANGLING) / n;
        master.setGlobal(SHARED, (1 - damping) / n + damping * dangling);
        long s = master.superstep();
        return s >= iterations || (tolerance > 0 && s >= 1 && master.aggregatedDouble(RESIDUAL) < tolerance);
    }

    /**
     * The verifier's measure: the largest difference of {@code ranks}, after {@code
     * iterations} updates with this program's damping and dangling rule, from plain power
     * iteration's ({@link References#pageRank}).
     */
    public double largestDifference(GraphFile g, double[] ranks, int iterations) {
        double[] want = References.pageRank(g, damping, iterations, dropDangling);
        double worst = 0;
        for (int v = 0; v < want.length; v++) {
            worst = Math.max(worst, Math.abs(want[v] - ranks[v]));
        }
        return worst;
    }

    /** Ranks agree when no vertex's differs from power iteration's by more than 1e-9. */
    public static Verdict verdict(double largestDifference) {
        String said = String.format("largest difference from power iteration: %.3g", largestDifference);
        return largestDifference <= 1e-9 ? Verdict.agreement(said) : Verdict.difference(said);
    }

    /** The L1 change of a superstep's aggregates. */
    public static double residual(double[] aggregates) {
        return aggregates[RESIDUAL];
    }
}

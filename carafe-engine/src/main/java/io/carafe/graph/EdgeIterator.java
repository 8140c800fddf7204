package io.carafe.graph;

import io.rstore.Batch;
import io.rstore.Mapping;

import java.lang.foreign.MemorySegment;

/**
 * The out-edges of one vertex. {@link #nextInt()} returns the next target's internal id,
 * or -1 at the end; {@link #weight()} is that edge's weight (1 on an unweighted graph).
 * Long lists are read in batches of {@link #BATCH_EDGES}, targets and weights posted
 * together. Allocates nothing per edge; reusable through {@link #reset}.
 */
public final class EdgeIterator {
    public static final int BATCH_EDGES = 8192;

    private final Mapping targets;
    private final Mapping weights;
    private final MemorySegment targetBytes;
    private final MemorySegment weightBytes;
    private final int weightSize; // bytes a weight takes
    private final Batch batch = new Batch();
    private long next;
    private long end;
    private long readUpTo;
    private long current = -1;

    EdgeIterator(CarafeGraph graph) {
        this.targets = graph.edgeTargets();
        this.weights = graph.edgeWeights();
        this.targetBytes = targets.segment();
        this.weightBytes = weights == null ? null : weights.segment();
        this.weightSize = graph.header().weightBytes();
    }

    /** Points the iterator at edges {@code [firstEdge, firstEdge + degree)}. */
    public EdgeIterator reset(long firstEdge, int degree) {
        next = firstEdge;
        end = firstEdge + degree;
        readUpTo = firstEdge;
        current = -1;
        return this;
    }

    /** The next target, or -1 when there is none. */
    public int nextInt() {
        if (next >= end) {
            current = -1;
            return -1;
        }
        if (next >= readUpTo) {
            fill();
        }
        current = next++;
        return EdgeLayout.target(targetBytes, current);
    }

    /** Weight of the edge last returned by {@link #nextInt()}. */
    public double weight() {
        if (current < 0) {
            throw new IllegalStateException("weight() of no edge: call nextInt() first, and only while it returns >= 0");
        }
        return weightBytes == null ? 1.0 : EdgeLayout.weight(weightBytes, current, weightSize);
    }

    private void fill() {
        long n = Math.min(BATCH_EDGES, end - next);
        batch.read(targets, next * EdgeLayout.TARGET_BYTES, n * EdgeLayout.TARGET_BYTES);
        if (weights != null) {
            batch.read(weights, next * weightSize, n * weightSize);
        }
        batch.join();
        readUpTo = next + n;
    }
}

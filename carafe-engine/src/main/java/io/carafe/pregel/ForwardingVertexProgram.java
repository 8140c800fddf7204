package io.carafe.pregel;

import java.util.List;
import java.util.Objects;

/**
 * A vertex program that passes every call on to another: the base of a wrapper that
 * changes one thing (a program loaded from a user's jar, a test's program that fails on
 * cue) and must keep everything the wrapped program says of itself: its {@link
 * Declaration}, start vertices, aggregators, master step. A wrapper that implemented
 * VertexProgram itself would silently fall back to a default for any method it forgot to
 * forward (a lost {@code masterCompute} is a job that never stops on its own).
 */
public abstract class ForwardingVertexProgram implements VertexProgram {
    private final VertexProgram delegate;

    protected ForwardingVertexProgram(VertexProgram delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The wrapped program. */
    public VertexProgram delegate() {
        return delegate;
    }

    @Override
    public void compute(Context ctx) {
        delegate.compute(ctx);
    }

    @Override
    public Declaration declaration() {
        return delegate.declaration();
    }

    @Override
    public int[] startVertices() {
        return delegate.startVertices();
    }

    @Override
    public void initialValue(RecordView value) {
        delegate.initialValue(value);
    }

    @Override
    public long workerBytes(long vertices, long edges, int workers) {
        return delegate.workerBytes(vertices, edges, workers);
    }

    @Override
    public long processBytes(long vertices, long edges) {
        return delegate.processBytes(vertices, edges);
    }

    @Override
    public long busiestSuperstepMessages(long vertices, long edges, int workers) {
        return delegate.busiestSuperstepMessages(vertices, edges, workers);
    }

    @Override
    public List<Aggregator> aggregators() {
        return delegate.aggregators();
    }

    @Override
    public int globals() {
        return delegate.globals();
    }

    @Override
    public String spec() {
        return delegate.spec();
    }

    @Override
    public boolean masterCompute(MasterContext master) {
        return delegate.masterCompute(master);
    }

    @Override
    public void formatValue(RecordView value, StringBuilder out) {
        delegate.formatValue(value, out);
    }
}

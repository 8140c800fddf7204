package io.carafe.pregel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A flyweight over one record of a {@link RecordLayout}: a window onto memory (RStore's,
 * for vertex values) that the engine moves from record to record. Reused for every vertex
 * and message, so a program must not keep one beyond the call it was given in.
 * Offsets are the layout's ({@link RecordLayout#offset}). Not named Record, which
 * {@code import io.carafe.pregel.*} would make clash with {@code java.lang.Record}.
 */
public final class RecordView {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private final RecordLayout layout;
    private MemorySegment memory;
    private long base;

    public RecordView(RecordLayout layout) {
        this.layout = layout;
    }

    /**
     * A record over memory of its own (for scratch records a program keeps). Off-heap like
     * the engine's records, so the accessors see one kind of segment and stay fast.
     */
    public static RecordView allocate(RecordLayout layout) {
        RecordView r = new RecordView(layout);
        r.wrap(Arena.ofAuto().allocate(layout.bytes(), 8), 0);
        return r;
    }

    /** Points this flyweight at the record at {@code base} in {@code memory}. */
    public RecordView wrap(MemorySegment memory, long base) {
        this.memory = memory;
        this.base = base;
        return this;
    }

    void moveTo(long base) {
        this.base = base;
    }

    public RecordLayout layout() {
        return layout;
    }

    public long getLong(long offset) {
        return memory.get(LONG, base + offset);
    }

    public void setLong(long offset, long value) {
        memory.set(LONG, base + offset, value);
    }

    public int getInt(long offset) {
        return memory.get(INT, base + offset);
    }

    public void setInt(long offset, int value) {
        memory.set(INT, base + offset, value);
    }

    public double getDouble(long offset) {
        return memory.get(DOUBLE, base + offset);
    }

    public void setDouble(long offset, double value) {
        memory.set(DOUBLE, base + offset, value);
    }

    /** Copies {@code other}'s bytes into this record (same layout size). */
    public void copyFrom(RecordView other) {
        MemorySegment.copy(other.memory, other.base, memory, base, layout.bytes());
    }

    /** Sets every byte to zero. */
    public void clear() {
        memory.asSlice(base, layout.bytes()).fill((byte) 0);
    }

    /** The fields as text, separated by spaces (array elements too): how -o writes a value by default. */
    public void appendTo(StringBuilder out) {
        boolean first = true;
        for (RecordLayout.Field f : layout.fields()) {
            for (int i = 0; i < f.length(); i++) {
                if (!first) {
                    out.append(' ');
                }
                first = false;
                long at = f.offset() + (long) i * f.type().bytes();
                switch (f.type()) {
                    case INT -> out.append(getInt(at));
                    case LONG -> out.append(getLong(at));
                    case DOUBLE -> out.append(getDouble(at));
                }
            }
        }
    }

    MemorySegment memory() {
        return memory;
    }

    long base() {
        return base;
    }
}

package io.rstore;

/** Bit flags for {@link Namespace#alloc} and {@link Namespace#allocAt}. */
public final class AllocFlags {
    public static final int NONE = 0;
    /** Zero the segment's memory; without it a segment may hold bytes of one freed earlier in the same namespace. */
    public static final int ZERO = 1;
    /** Reserve the missing memory as part of the allocation, atomically, instead of failing with INSUFFICIENT_RESERVATION. */
    public static final int GROW = 2;

    static final int ALL = ZERO | GROW;

    private AllocFlags() {
    }
}

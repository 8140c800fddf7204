package io.rstore;

/** Bit flags for {@link RAddress#map}. */
public final class MapFlags {
    public static final int NONE = 0;
    /** Writes through this mapping fail with READ_ONLY. */
    public static final int READ_ONLY = 1;
    /** Read the whole mapped range once while mapping; otherwise local bytes are undefined until the first read. */
    public static final int PREFETCH = 2;

    static final int ALL = READ_ONLY | PREFETCH;

    private MapFlags() {
    }
}

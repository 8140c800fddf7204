package io.rstore;

/** Flags for {@link RStore#createNamespace(String, int)}; combine with |. */
public final class NamespaceFlags {
    public static final int NONE = 0;
    /**
     * Every chunk of the namespace comes from a memory server with a persistence directory
     * (rstore.persistence.dir), so {@link Mapping#persist} can make its writes survive a
     * restart; OUT_OF_MEMORY when no such server has room.
     */
    public static final int DURABLE = 1;

    private NamespaceFlags() {
    }
}

package io.rstore;

/** Bit flags for {@link RAddress#map}. */
public final class MapFlags {
    public static final int NONE = 0;
    /** Writes through this mapping fail with READ_ONLY. */
    public static final int READ_ONLY = 1;
    /** Read the whole mapped range once while mapping; otherwise local bytes are undefined until the first read. */
    public static final int PREFETCH = 2;
    /**
     * With {@link #READ_ONLY}: where the transport reaches the server's memory itself (a
     * server in this process, or shm chunk files on this host) and the range lies within one
     * chunk, the mapping's local memory is the chunk's own bytes, read-only. Nothing is
     * copied or allocated, {@link Mapping#read} and {@link #PREFETCH} have nothing to do, and
     * the bytes are the server's as they stand: others' writes show at once. Anywhere else
     * (tcp, RDMA, a range across chunks) the mapping copies as it would without the flag;
     * {@link Mapping#isDirect} tells which. For data that nobody writes while it is mapped,
     * such as a loaded graph, where a copy would only cost time and memory.
     */
    public static final int DIRECT = 4;

    static final int ALL = READ_ONLY | PREFETCH | DIRECT;

    private MapFlags() {
    }
}

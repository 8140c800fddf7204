package io.rstore.protocol;

import java.util.List;

/**
 * The control-path calls a client makes on the master. Every call is atomic at the master
 * and fails with an {@link io.rstore.RStoreException} carrying the code. The in-process
 * cluster implements this interface directly; network transports carry each method as a
 * request and response frame.
 */
public interface MasterProtocol {

    /** Opens a client session; every reference the session takes is dropped when it closes. */
    long openSession(String clientName);

    /** Closes a session and drops all its mapping references. Idempotent. */
    void closeSession(long session);

    long chunkSizeBytes();

    List<ServerInfo> servers();

    /** Open client sessions (for status). */
    List<ClientInfo> clients();

    /**
     * A memory server daemon joins the cluster: the master connects back to its address,
     * proves its control token on every call it makes there, and returns the server's id.
     * A server the master knows by its identity (it registered before, or the master's
     * journal remembers it) gets its id back, and the chunks it reports are reconciled with
     * the namespaces': those no namespace holds are released, those a namespace holds but the
     * server lacks (or has at the wrong size) are lost and reported, never silently zeroed.
     * A server the master does not know is told to release every chunk it reports, unless it
     * is durable: then the registration is refused, as its chunks would be destroyed. A
     * server registering again while the master knows it alive keeps its id and chunks:
     * memory servers repeat this call every heartbeat, which is how they rejoin a restarted
     * master. UNSUPPORTED on a cluster whose servers live in the master's process.
     */
    int registerServer(ServerRegistration registration);

    /**
     * Makes {@code [address, address + length)} of a segment durable: returns once every
     * memory server holding part of it has flushed it to its persistence directory (msync).
     * UNSUPPORTED when part of the range lies on a server without one.
     */
    void persist(long session, long namespaceId, long address, long length);

    /** The master's version, uptime and the age of each memory server's last heartbeat. */
    ClusterInfo clusterInfo();

    /** {@code flags} are {@link io.rstore.NamespaceFlags}. */
    NamespaceInfo createNamespace(long session, String name, int flags);

    NamespaceInfo joinNamespace(long session, String name);

    /** Fails with SEGMENT_IN_USE while any segment of it is mapped. */
    void deleteNamespace(long session, String name);

    NamespaceInfo namespaceInfo(long session, long namespaceId);

    List<NamespaceInfo> namespaces(long session);

    /** Reserves at least {@code bytes} more (whole chunks); returns the namespace's total. */
    long reserve(long session, long namespaceId, long bytes);

    /** Gives back whole chunks at the end of the address space; they must hold no segment. Returns the total left. */
    long release(long session, long namespaceId, long bytes);

    /** Allocates a segment first-fit and returns it with its locations. */
    SegmentInfo alloc(long session, long namespaceId, long bytes, int flags);

    /**
     * Allocates a segment of {@code length} bytes at the end of the namespace's address
     * space whose whole chunks are the pages of {@code file} from {@code offset} on, mapped
     * privately (copy-on-write: the file never changes) by the memory servers; a last
     * partial chunk is an ordinary one, left for the caller to fill. Only memory servers in
     * the master's process can do this, and only for clients in that process (the file is
     * opened with the process's rights): UNSUPPORTED elsewhere, and when {@code offset} is
     * not a multiple of the chunk size or {@code length} is under one chunk.
     */
    SegmentInfo allocFromFile(long session, long namespaceId, String file, long offset, long length);

    /** Allocates a segment at {@code address}: ADDRESS_IN_USE if the range overlaps one. */
    SegmentInfo allocAt(long session, long namespaceId, long address, long bytes, int flags);

    /** Fails with SEGMENT_IN_USE while the segment is mapped. */
    void free(long session, long namespaceId, long address);

    /** The segment starting at {@code address}, or INVALID_ADDRESS. */
    SegmentInfo lookup(long session, long namespaceId, long address);

    /** Takes a mapping reference on the segment for this session and returns its current locations. */
    SegmentInfo map(long session, long namespaceId, long address);

    /** Drops one mapping reference of this session. */
    void unmap(long session, long namespaceId, long address);
}

package io.rstore.master;

/**
 * Every change to the master's durable metadata, one method each. The master makes a
 * change by calling its own state's method and the {@link Journal}'s with the same
 * arguments; a restarted master replays the journal into its state through the same
 * methods, so what it rebuilds is what it had. Sessions and mapping references are not
 * here: they end with the master's process.
 */
interface MetadataChanges {

    /** Memory server {@code id} joined (or rejoined, at a new address) as {@code identity}. */
    void serverJoined(int id, String identity, boolean durable, String address, String shm, String rdma);

    void namespaceCreated(long id, String name, int stripe, int flags);

    /** The namespace is gone; its chunks were pooled or released by the changes before this one. */
    void namespaceDeleted(long id);

    /** A chunk was laid at the end of the namespace's address space (a free range until a segment takes it). */
    void chunkAppended(long namespace, int server, int chunkId, long key, boolean mappedFile);

    /** The namespace gave back its last chunk (free of segments). */
    void lastChunkDropped(long namespace);

    /** Where the namespace's next chunk is taken first. */
    void stripeMoved(long namespace, int stripe);

    /** A chunk went to the front of its server's pool, under {@code key}. */
    void chunkPooled(int server, int chunkId, long key);

    /** The chunk at the front of the server's pool was taken. */
    void pooledChunkTaken(int server);

    /** The server's pool is emptied, to be told again as the server reported it when it rejoined. */
    void poolCleared(int server);

    /** A chunk has a new key: its server's, adopted when the server rejoined (a recycle the journal did not see). */
    void chunkKeyed(int server, int chunkId, long key);

    void segmentPlaced(long namespace, long address, long length, long span);

    void segmentFreed(long namespace, long address);
}

package io.rstore.master;

/** A change made twice: to the master's state, then to its journal. */
record TeeChanges(MetadataChanges state, MetadataChanges journal) implements MetadataChanges {

    @Override
    public void serverJoined(int id, String identity, boolean durable, String address, String shm, String rdma) {
        state.serverJoined(id, identity, durable, address, shm, rdma);
        journal.serverJoined(id, identity, durable, address, shm, rdma);
    }

    @Override
    public void namespaceCreated(long id, String name, int stripe, int flags) {
        state.namespaceCreated(id, name, stripe, flags);
        journal.namespaceCreated(id, name, stripe, flags);
    }

    @Override
    public void namespaceDeleted(long id) {
        state.namespaceDeleted(id);
        journal.namespaceDeleted(id);
    }

    @Override
    public void chunkAppended(long namespace, int server, int chunkId, long key, boolean mappedFile) {
        state.chunkAppended(namespace, server, chunkId, key, mappedFile);
        journal.chunkAppended(namespace, server, chunkId, key, mappedFile);
    }

    @Override
    public void lastChunkDropped(long namespace) {
        state.lastChunkDropped(namespace);
        journal.lastChunkDropped(namespace);
    }

    @Override
    public void stripeMoved(long namespace, int stripe) {
        state.stripeMoved(namespace, stripe);
        journal.stripeMoved(namespace, stripe);
    }

    @Override
    public void chunkPooled(int server, int chunkId, long key) {
        state.chunkPooled(server, chunkId, key);
        journal.chunkPooled(server, chunkId, key);
    }

    @Override
    public void pooledChunkTaken(int server) {
        state.pooledChunkTaken(server);
        journal.pooledChunkTaken(server);
    }

    @Override
    public void poolCleared(int server) {
        state.poolCleared(server);
        journal.poolCleared(server);
    }

    @Override
    public void chunkKeyed(int server, int chunkId, long key) {
        state.chunkKeyed(server, chunkId, key);
        journal.chunkKeyed(server, chunkId, key);
    }

    @Override
    public void segmentPlaced(long namespace, long address, long length, long span) {
        state.segmentPlaced(namespace, address, length, span);
        journal.segmentPlaced(namespace, address, length, span);
    }

    @Override
    public void segmentFreed(long namespace, long address) {
        state.segmentFreed(namespace, address);
        journal.segmentFreed(namespace, address);
    }
}

package io.rstore.protocol;

import java.util.List;

/**
 * What a memory server daemon tells the master when it joins, and again every heartbeat.
 *
 * @param address       its data address, e.g. rstore+tcp://HOST:PORT, where the master connects back
 * @param shm           where clients on its host find its chunk files, or empty
 * @param rdma          where its RDMA device listens, or empty
 * @param capacityBytes the memory it may hand out
 * @param controlToken  what the master proves on every call it makes there
 * @param identity      who it is across restarts: kept in its persistence directory, else new with each process
 * @param durable       whether its chunks are files in a persistence directory, kept across restarts
 * @param chunks        the chunks it holds
 */
public record ServerRegistration(String address, String shm, String rdma, long capacityBytes, String controlToken, String identity,
                                 boolean durable, List<HeldChunk> chunks) {

    /** A chunk a memory server holds: its id, its key, and its size in bytes. */
    public record HeldChunk(int id, long key, long bytes) {
    }
}

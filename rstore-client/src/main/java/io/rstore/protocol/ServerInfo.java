package io.rstore.protocol;

/**
 * A memory server as the master knows it.
 *
 * @param id            dense id given at registration
 * @param address       how a transport reaches it (for inproc: {@code inproc://cluster/id})
 * @param shm           where clients on its host find its chunk files ({@code BOOT-ID:DIRECTORY}), or empty
 * @param rdma          where its RDMA device listens ({@code DEVICE://HOST:PORT}, DEVICE disni or emulated), or empty
 * @param capacityBytes DRAM it may hand out
 * @param usedBytes     DRAM in chunks it has allocated (reserved or in the free pool)
 * @param alive         whether it is serving
 * @param durable       whether it keeps its chunks as files in a persistence directory, across restarts
 */
public record ServerInfo(int id, String address, String shm, String rdma, long capacityBytes, long usedBytes, boolean alive, boolean durable) {
}

package io.rstore.server;

import io.rstore.ErrorCode;
import io.rstore.transport.RegionTable;
import io.rstore.transport.rdma.ChunkResolver;
import io.rstore.transport.rdma.MemoryRegion;
import io.rstore.transport.rdma.RdmaDevice;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A memory server's chunks on an RDMA device: each chunk registered as a memory region
 * (a recycled chunk is registered anew, so the old rkey stops working), and a listener
 * that accepts clients' queue pairs and resolves a chunk's id and key, checked against
 * the {@link RegionTable}, to its region. The data path is then the device's alone.
 */
public final class RdmaChunks implements AutoCloseable {
    private final RdmaDevice device;
    private final RegionTable regions;
    private final RdmaDevice.Listener listener;
    private final String address;
    private final Int2ObjectOpenHashMap<MemoryRegion> byChunk = new Int2ObjectOpenHashMap<>();

    RdmaChunks(RdmaDevice device, RegionTable regions, InetSocketAddress bind, String advertiseHost) {
        this.device = device;
        this.regions = regions;
        this.listener = device.listen(bind, () -> ChunkResolver.handler(this::resolve));
        this.address = device.kind() + "://" + advertiseHost + ":" + listener.port();
    }

    /** What clients are told: {@code DEVICE://HOST:PORT}. */
    public String address() {
        return address;
    }

    /** A chunk got memory (new, or recycled under a new key): register it, dropping its old region. */
    synchronized void registered(int chunkId, MemorySegment memory) {
        MemoryRegion old = byChunk.put(chunkId, device.register(memory));
        if (old != null) {
            device.deregister(old);
        }
    }

    synchronized void released(int chunkId) {
        MemoryRegion old = byChunk.remove(chunkId);
        if (old != null) {
            device.deregister(old);
        }
    }

    /** The chunk's region, only to the holder of its current key. */
    private synchronized MemoryRegion resolve(int chunkId, long key) {
        int status = regions.status(chunkId, key, 0, 0);
        MemoryRegion region = byChunk.get(chunkId);
        if (status != 0) {
            throw ErrorCode.of(status).exception("chunk " + chunkId + " is not there under that key");
        }
        if (region == null) {
            throw ErrorCode.UNAUTHORIZED.exception("chunk " + chunkId + " is not registered on the device");
        }
        return region;
    }

    /** Closes the listener and every queue pair: clients' operations fail with SERVER_UNAVAILABLE, as if the host had died. */
    @Override
    public synchronized void close() {
        listener.close();
        byChunk.values().forEach(device::deregister);
        byChunk.clear();
        device.close();
    }
}

package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The one RPC of the rdma transport, over SEND/RECV: a client turns a chunk's id and key
 * (what the master hands out) into the chunk's registered memory (address, length,
 * rkey), once per chunk and key; from then on the chunk is read and written one-sided.
 * Request: {@code chunkId i32, key i64}; answer: {@code status i32, address i64,
 * length i64, rkey i32} (status an {@link io.rstore.ErrorCode} number). A refused
 * resolve answers its status and zeros: nothing of any chunk.
 */
public final class ChunkResolver {
    static final int REQUEST = 12;
    static final int ANSWER = 24;

    /** The server's side: the registered memory of a chunk under a key. */
    @FunctionalInterface
    public interface Chunks {
        /** The chunk's region; an {@link RStoreException} with the reason when there is no such chunk under that key. */
        MemoryRegion resolve(int chunkId, long key);
    }

    private ChunkResolver() {
    }

    /**
     * What a memory server's listener answers SENDs with. It keeps no state: every request
     * is resolved on its own, so one connection's answer never carries another's chunk.
     */
    public static RdmaDevice.RequestHandler handler(Chunks chunks) {
        return new RdmaDevice.RequestHandler() {
            @Override
            public void handle(ByteBuffer request, ByteBuffer response) {
                request.order(ByteOrder.LITTLE_ENDIAN);
                response.order(ByteOrder.LITTLE_ENDIAN);
                if (request.remaining() != REQUEST) {
                    refuse(response, ErrorCode.INVALID_FRAME);
                    return;
                }
                MemoryRegion region;
                try {
                    region = chunks.resolve(request.getInt(), request.getLong());
                } catch (RStoreException e) {
                    refuse(response, e.code());
                    return;
                }
                response.putInt(ErrorCode.NONE.code()).putLong(region.address()).putLong(region.length()).putInt(region.rkey());
            }

            /** Resolves are a few bytes each way: the listener's small buffers, whoever connects. */
            @Override
            public int messageBytes() {
                return RdmaDevice.SMALL_MESSAGE;
            }
        };
    }

    private static void refuse(ByteBuffer response, ErrorCode code) {
        response.putInt(code.code()).putLong(0).putLong(0).putInt(0);
    }

    static ByteBuffer request(int chunkId, long key) {
        return ByteBuffer.allocate(REQUEST).order(ByteOrder.LITTLE_ENDIAN).putInt(chunkId).putLong(key).flip();
    }
}

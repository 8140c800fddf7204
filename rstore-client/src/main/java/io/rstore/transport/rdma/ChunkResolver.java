package io.rstore.transport.rdma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The one RPC of the rdma transport, over SEND/RECV: a client turns a chunk's id and key
 * (what the master hands out) into the chunk's registered memory (address, length,
 * rkey), once per chunk and key; from then on the chunk is read and written one-sided.
 * Request: {@code chunkId i32, key i64}; answer: {@code status i32, address i64,
 * length i64, rkey i32} (status an {@link io.rstore.ErrorCode} number).
 */
public final class ChunkResolver {
    static final int REQUEST = 12;

    /** The server's side: the registered memory of a chunk, or an error status. */
    @FunctionalInterface
    public interface Chunks {
        /** Fills {@code into} (address, length, rkey) and returns 0, or returns the error status. */
        int resolve(int chunkId, long key, long[] into);
    }

    private ChunkResolver() {
    }

    /** What a memory server's listener answers SENDs with. */
    public static RdmaDevice.RequestHandler handler(Chunks chunks) {
        long[] found = new long[3];
        return (request, response) -> {
            request.order(ByteOrder.LITTLE_ENDIAN);
            response.order(ByteOrder.LITTLE_ENDIAN);
            if (request.remaining() != REQUEST) {
                response.putInt(io.rstore.ErrorCode.INVALID_FRAME.code()).putLong(0).putLong(0).putInt(0);
                return;
            }
            int status;
            synchronized (found) {
                status = chunks.resolve(request.getInt(), request.getLong(), found);
                response.putInt(status).putLong(found[0]).putLong(found[1]).putInt((int) found[2]);
            }
        };
    }

    static ByteBuffer request(int chunkId, long key) {
        return ByteBuffer.allocate(REQUEST).order(ByteOrder.LITTLE_ENDIAN).putInt(chunkId).putLong(key).flip();
    }
}

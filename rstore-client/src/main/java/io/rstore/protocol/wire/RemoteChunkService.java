package io.rstore.protocol.wire;

import io.rstore.protocol.ChunkService;

import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The master's side of a memory server daemon: each {@link ChunkService} call is a frame
 * on the connection the master opened to the server. Capacity is learnt once; used bytes
 * come back with every call that changes them, and with every {@link #ping}.
 */
public final class RemoteChunkService implements ChunkService, AutoCloseable {
    private final Caller caller;
    private final String token;
    private final long capacity;
    private volatile long used;

    public RemoteChunkService(FrameTransport transport, String controlToken) {
        this.caller = new Caller(transport);
        this.token = controlToken;
        long[] described = call(ChunkCalls.DESCRIBE, b -> { }, in -> new long[] {in.getLong(), in.getLong()});
        this.capacity = described[0];
        this.used = described[1];
    }

    private <T> T call(int type, Consumer<WireBuffer> body, Function<WireBuffer, T> result) {
        return caller.call(type, b -> body.accept(b.putString(token)), result);
    }

    @Override
    public Grant allocateChunk(long bytes) {
        return call(ChunkCalls.ALLOCATE_CHUNK, b -> b.putLong(bytes), in -> {
            Grant grant = new Grant(in.getInt(), in.getLong());
            used = in.getLong();
            return grant;
        });
    }

    @Override
    public long recycle(int chunkId) {
        return call(ChunkCalls.RECYCLE, b -> b.putInt(chunkId), WireBuffer::getLong);
    }

    @Override
    public void zero(int chunkId, long offset, long length) {
        call(ChunkCalls.ZERO, b -> b.putInt(chunkId).putLong(offset).putLong(length), Caller::none);
    }

    @Override
    public void populate(int chunkId, long offset, long length) {
        call(ChunkCalls.POPULATE, b -> b.putInt(chunkId).putLong(offset).putLong(length), Caller::none);
    }

    @Override
    public void persist(int chunkId, long offset, long length) {
        call(ChunkCalls.PERSIST_CHUNK, b -> b.putInt(chunkId).putLong(offset).putLong(length), Caller::none);
    }

    @Override
    public void releaseChunk(int chunkId) {
        used = call(ChunkCalls.RELEASE_CHUNK, b -> b.putInt(chunkId), WireBuffer::getLong);
    }

    @Override
    public long capacityBytes() {
        return capacity;
    }

    @Override
    public long usedBytes() {
        return used;
    }

    @Override
    public void ping() {
        used = call(ChunkCalls.DESCRIBE, b -> { }, in -> {
            in.getLong();
            return in.getLong();
        });
    }

    @Override
    public void close() {
        caller.close();
    }
}

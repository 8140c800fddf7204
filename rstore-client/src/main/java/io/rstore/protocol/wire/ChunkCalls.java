package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.protocol.ChunkService;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The calls the master makes on a memory server daemon (docs/protocol.md, types 32-37),
 * and the server's side of them. Every call carries the control token the server gave
 * at registration: clients share the cluster secret, but only the master has the token,
 * so only the master can allocate or release a server's chunks.
 */
public final class ChunkCalls {
    static final int ALLOCATE_CHUNK = 32;
    static final int RECYCLE = 33;
    static final int ZERO = 34;
    static final int RELEASE_CHUNK = 35;
    static final int DESCRIBE = 36;
    static final int PERSIST_CHUNK = 37;
    static final int POPULATE = 38;
    static final int FIRST = ALLOCATE_CHUNK;
    static final int LAST = POPULATE;

    private ChunkCalls() {
    }

    /** Serves the master's calls on {@code server}, for whoever proves {@code token}. */
    public static FrameHandler handler(ChunkService server, String token) {
        byte[] expected = token.getBytes(StandardCharsets.UTF_8);
        return request -> Frames.serve(request, FIRST, LAST, (type, in, out) -> {
            if (!MessageDigest.isEqual(expected, in.getString().getBytes(StandardCharsets.UTF_8))) {
                throw ErrorCode.UNAUTHORIZED.exception("only the master may manage this memory server's chunks");
            }
            switch (type) {
                case ALLOCATE_CHUNK -> {
                    long bytes = in.getLong();
                    in.expectEnd();
                    ChunkService.Grant grant = server.allocateChunk(bytes);
                    out.putInt(grant.chunkId()).putLong(grant.key()).putLong(server.usedBytes());
                }
                case RECYCLE -> {
                    int chunk = in.getInt();
                    in.expectEnd();
                    out.putLong(server.recycle(chunk));
                }
                case RELEASE_CHUNK -> {
                    int chunk = in.getInt();
                    in.expectEnd();
                    server.releaseChunk(chunk);
                    out.putLong(server.usedBytes());
                }
                case ZERO, POPULATE, PERSIST_CHUNK -> { // a range of a chunk
                    int chunk = in.getInt();
                    long offset = in.getLong();
                    long length = in.getLong();
                    in.expectEnd();
                    switch (type) {
                        case ZERO -> server.zero(chunk, offset, length);
                        case POPULATE -> server.populate(chunk, offset, length);
                        default -> server.persist(chunk, offset, length);
                    }
                }
                default -> { // DESCRIBE
                    in.expectEnd();
                    out.putLong(server.capacityBytes()).putLong(server.usedBytes());
                }
            }
        });
    }
}

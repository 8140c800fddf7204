package io.rstore.transport.inproc;

import io.rstore.Completion;
import io.rstore.ErrorCode;
import io.rstore.protocol.ServerInfo;
import io.rstore.transport.Endpoint;
import io.rstore.transport.RegionTable;
import io.rstore.transport.Transport;

import java.lang.foreign.MemorySegment;
import java.util.function.IntFunction;

/**
 * Everything in one JVM: a one-sided operation is a checked copy between the client's
 * mapping and the server's chunk, done by the posting thread (the "NIC" is the CPU), so
 * it completes before the post returns. A {@link io.rstore.MapFlags#DIRECT} mapping is the
 * chunk's memory itself.
 */
public final class InprocTransport implements Transport {
    private final IntFunction<RegionTable> servers;

    /** {@code servers} resolves a server id to its registered memory. */
    public InprocTransport(IntFunction<RegionTable> servers) {
        this.servers = servers;
    }

    @Override
    public String name() {
        return "inproc";
    }

    @Override
    public Endpoint connect(ServerInfo server, Locator locator) { // a server in this JVM does not move
        RegionTable table = servers.apply(server.id());
        if (table == null) {
            throw ErrorCode.SERVER_UNAVAILABLE.exception("memory server " + server.id() + " (" + server.address() + ") is not in this JVM");
        }
        return new InprocEndpoint(table);
    }

    @Override
    public void close() {
    }

    private record InprocEndpoint(RegionTable table) implements Endpoint {
        @Override
        public void postRead(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion completion) {
            completion.complete(table.read(chunkId, key, remoteOffset, local, localOffset, length));
        }

        @Override
        public void postWrite(int chunkId, long key, long remoteOffset, MemorySegment local, int localKey, long localOffset, long length, Completion completion) {
            completion.complete(table.write(chunkId, key, remoteOffset, local, localOffset, length));
        }

        @Override
        public MemorySegment view(int chunkId, long key, long remoteOffset, long length) {
            MemorySegment chunk = table.checked(chunkId, key, remoteOffset, length);
            return chunk == null ? null : chunk.asSlice(remoteOffset, length).asReadOnly();
        }

        @Override
        public void close() {
        }
    }
}

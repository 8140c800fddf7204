package io.rstore.protocol.wire;

import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.ClusterInfo;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerInfo;
import io.rstore.protocol.ServerRegistration;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The client side of the master protocol: every call becomes a request frame, and the
 * response frame becomes its result or its {@link io.rstore.RStoreException}.
 */
public final class RemoteMaster implements MasterProtocol, AutoCloseable {
    private final Caller caller;

    public RemoteMaster(FrameTransport transport) {
        this.caller = new Caller(transport);
    }

    private <T> T call(int type, Consumer<WireBuffer> body, Function<WireBuffer, T> result) {
        return caller.call(type, body, result);
    }

    @Override
    public long openSession(String clientName) {
        return call(MasterCalls.OPEN_SESSION, b -> b.putString(clientName == null ? "" : clientName), WireBuffer::getLong);
    }

    @Override
    public void closeSession(long session) {
        call(MasterCalls.CLOSE_SESSION, b -> b.putLong(session), Caller::none);
    }

    @Override
    public long chunkSizeBytes() {
        return call(MasterCalls.CHUNK_SIZE, b -> { }, WireBuffer::getLong);
    }

    @Override
    public List<ServerInfo> servers() {
        return call(MasterCalls.SERVERS, b -> { }, MasterCalls::getServers);
    }

    @Override
    public NamespaceInfo createNamespace(long session, String name, int flags) {
        return call(MasterCalls.CREATE_NAMESPACE, b -> b.putLong(session).putString(name).putInt(flags), MasterCalls::getNamespace);
    }

    @Override
    public NamespaceInfo joinNamespace(long session, String name) {
        return call(MasterCalls.JOIN_NAMESPACE, b -> b.putLong(session).putString(name), MasterCalls::getNamespace);
    }

    @Override
    public void deleteNamespace(long session, String name) {
        call(MasterCalls.DELETE_NAMESPACE, b -> b.putLong(session).putString(name), Caller::none);
    }

    @Override
    public NamespaceInfo namespaceInfo(long session, long namespaceId) {
        return call(MasterCalls.NAMESPACE_INFO, b -> b.putLong(session).putLong(namespaceId), MasterCalls::getNamespace);
    }

    @Override
    public List<NamespaceInfo> namespaces(long session) {
        return call(MasterCalls.NAMESPACES, b -> b.putLong(session), MasterCalls::getNamespaces);
    }

    @Override
    public long reserve(long session, long namespaceId, long bytes) {
        return call(MasterCalls.RESERVE, b -> b.putLong(session).putLong(namespaceId).putLong(bytes), WireBuffer::getLong);
    }

    @Override
    public long release(long session, long namespaceId, long bytes) {
        return call(MasterCalls.RELEASE, b -> b.putLong(session).putLong(namespaceId).putLong(bytes), WireBuffer::getLong);
    }

    @Override
    public SegmentInfo alloc(long session, long namespaceId, long bytes, int flags) {
        return call(MasterCalls.ALLOC, b -> b.putLong(session).putLong(namespaceId).putLong(bytes).putInt(flags), MasterCalls::getSegment);
    }

    @Override
    public SegmentInfo allocAt(long session, long namespaceId, long address, long bytes, int flags) {
        return call(MasterCalls.ALLOC_AT, b -> b.putLong(session).putLong(namespaceId).putLong(address).putLong(bytes).putInt(flags),
                MasterCalls::getSegment);
    }

    @Override
    public SegmentInfo allocFromFile(long session, long namespaceId, String file, long offset, long length) {
        return call(MasterCalls.ALLOC_FROM_FILE, b -> b.putLong(session).putLong(namespaceId).putString(file).putLong(offset).putLong(length),
                MasterCalls::getSegment);
    }

    @Override
    public void free(long session, long namespaceId, long address) {
        call(MasterCalls.FREE, b -> b.putLong(session).putLong(namespaceId).putLong(address), Caller::none);
    }

    @Override
    public SegmentInfo lookup(long session, long namespaceId, long address) {
        return call(MasterCalls.LOOKUP, b -> b.putLong(session).putLong(namespaceId).putLong(address), MasterCalls::getSegment);
    }

    @Override
    public SegmentInfo map(long session, long namespaceId, long address) {
        return call(MasterCalls.MAP, b -> b.putLong(session).putLong(namespaceId).putLong(address), MasterCalls::getSegment);
    }

    @Override
    public void unmap(long session, long namespaceId, long address) {
        call(MasterCalls.UNMAP, b -> b.putLong(session).putLong(namespaceId).putLong(address), Caller::none);
    }

    @Override
    public List<ClientInfo> clients() {
        return call(MasterCalls.CLIENTS, b -> { }, MasterCalls::getClients);
    }

    @Override
    public int registerServer(ServerRegistration r) {
        return call(MasterCalls.REGISTER_SERVER, b -> MasterCalls.putRegistration(b, r), WireBuffer::getInt);
    }

    @Override
    public void persist(long session, long namespaceId, long address, long length) {
        call(MasterCalls.PERSIST, b -> b.putLong(session).putLong(namespaceId).putLong(address).putLong(length), Caller::none);
    }

    @Override
    public ClusterInfo clusterInfo() {
        return call(MasterCalls.CLUSTER_INFO, b -> { }, in -> {
            String version = in.getString();
            long uptime = in.getLong();
            int n = in.getCount(8);
            List<Long> ages = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                ages.add(in.getLong());
            }
            return new ClusterInfo(version, uptime, ages);
        });
    }

    @Override
    public void close() {
        caller.close();
    }
}

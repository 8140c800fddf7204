package io.rstore.protocol.wire;

import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerRegistration;
import io.rstore.protocol.ServerInfo;

import java.util.ArrayList;
import java.util.List;

/**
 * The master's calls on the wire: their type numbers (stable, like error codes) and the
 * encoding of the records they return. Field order is the order in docs/protocol.md.
 */
final class MasterCalls {
    static final int OPEN_SESSION = 1;
    static final int CLOSE_SESSION = 2;
    static final int CHUNK_SIZE = 3;
    static final int SERVERS = 4;
    static final int CREATE_NAMESPACE = 5;
    static final int JOIN_NAMESPACE = 6;
    static final int DELETE_NAMESPACE = 7;
    static final int NAMESPACE_INFO = 8;
    static final int NAMESPACES = 9;
    static final int RESERVE = 10;
    static final int RELEASE = 11;
    static final int ALLOC = 12;
    static final int ALLOC_AT = 13;
    static final int FREE = 14;
    static final int LOOKUP = 15;
    static final int MAP = 16;
    static final int UNMAP = 17;
    static final int CLIENTS = 18;
    static final int REGISTER_SERVER = 19;
    static final int ALLOC_FROM_FILE = 20;
    static final int CLUSTER_INFO = 21;
    static final int PERSIST = 22;
    static final int LAST = PERSIST;

    private MasterCalls() {
    }

    static void putRegistration(WireBuffer out, ServerRegistration r) {
        out.putString(r.address()).putString(r.shm()).putString(r.rdma()).putLong(r.capacityBytes()).putString(r.controlToken())
                .putString(r.identity()).putBoolean(r.durable()).putInt(r.chunks().size());
        for (ServerRegistration.HeldChunk c : r.chunks()) {
            out.putInt(c.id()).putLong(c.key()).putLong(c.bytes());
        }
    }

    static ServerRegistration getRegistration(WireBuffer in) {
        String address = in.getString();
        String shm = in.getString();
        String rdma = in.getString();
        long capacity = in.getLong();
        String token = in.getString();
        String identity = in.getString();
        boolean durable = in.getBoolean();
        int count = in.getCount(20);
        List<ServerRegistration.HeldChunk> chunks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            chunks.add(new ServerRegistration.HeldChunk(in.getInt(), in.getLong(), in.getLong()));
        }
        return new ServerRegistration(address, shm, rdma, capacity, token, identity, durable, chunks);
    }

    static void putNamespace(WireBuffer out, NamespaceInfo ns) {
        out.putLong(ns.id()).putString(ns.name()).putLong(ns.reservedBytes()).putLong(ns.allocatedBytes())
                .putInt(ns.segments()).putInt(ns.mappedSegments()).putInt(ns.flags());
    }

    static NamespaceInfo getNamespace(WireBuffer in) {
        return new NamespaceInfo(in.getLong(), in.getString(), in.getLong(), in.getLong(), in.getInt(), in.getInt(), in.getInt());
    }

    static void putNamespaces(WireBuffer out, List<NamespaceInfo> list) {
        out.putInt(list.size());
        list.forEach(ns -> putNamespace(out, ns));
    }

    static List<NamespaceInfo> getNamespaces(WireBuffer in) {
        int count = in.getCount(40);
        List<NamespaceInfo> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(getNamespace(in));
        }
        return list;
    }

    static void putServers(WireBuffer out, List<ServerInfo> list) {
        out.putInt(list.size());
        for (ServerInfo s : list) {
            out.putInt(s.id()).putString(s.address()).putString(s.shm()).putString(s.rdma()).putLong(s.capacityBytes()).putLong(s.usedBytes()).putBoolean(s.alive())
                    .putBoolean(s.durable());
        }
    }

    static List<ServerInfo> getServers(WireBuffer in) {
        int count = in.getCount(34);
        List<ServerInfo> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(new ServerInfo(in.getInt(), in.getString(), in.getString(), in.getString(), in.getLong(), in.getLong(), in.getBoolean(),
                    in.getBoolean()));
        }
        return list;
    }

    static void putClients(WireBuffer out, List<ClientInfo> list) {
        out.putInt(list.size());
        for (ClientInfo c : list) {
            out.putLong(c.session()).putString(c.name()).putInt(c.mappings());
        }
    }

    static List<ClientInfo> getClients(WireBuffer in) {
        int count = in.getCount(16);
        List<ClientInfo> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(new ClientInfo(in.getLong(), in.getString(), in.getInt()));
        }
        return list;
    }

    static void putSegment(WireBuffer out, SegmentInfo s) {
        out.putLong(s.namespaceId()).putLong(s.address()).putLong(s.length()).putLong(s.chunkSizeBytes()).putInt(s.chunks().size());
        for (ChunkLocation c : s.chunks()) {
            out.putInt(c.index()).putInt(c.serverId()).putInt(c.chunkId()).putLong(c.key());
        }
    }

    static SegmentInfo getSegment(WireBuffer in) {
        long namespace = in.getLong();
        long address = in.getLong();
        long length = in.getLong();
        long chunkSize = in.getLong();
        int count = in.getCount(20);
        List<ChunkLocation> chunks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            chunks.add(new ChunkLocation(in.getInt(), in.getInt(), in.getInt(), in.getLong()));
        }
        return new SegmentInfo(namespace, address, length, chunkSize, chunks);
    }
}

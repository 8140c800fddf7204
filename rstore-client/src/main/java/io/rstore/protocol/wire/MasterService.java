package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.protocol.ClusterInfo;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.ServerRegistration;
import it.unimi.dsi.fastutil.longs.LongArrayList;

import java.nio.ByteBuffer;

/**
 * The master side of the protocol: decodes a request frame, makes the call, and encodes
 * the result, or the error with its code and message. A malformed frame gets an
 * INVALID_FRAME error frame (correlation 0 when even the header is unreadable) and
 * nothing else happens: the caller should then close the connection.
 */
public final class MasterService {
    private final MasterProtocol master;

    public MasterService(MasterProtocol master) {
        this.master = master;
    }

    /** Answers one frame, outside any connection (the embedded cluster's loopback). Never throws. */
    public ByteBuffer handle(ByteBuffer request) {
        return Frames.serve(request, 1, MasterCalls.LAST, (type, in, out) -> dispatch(type, in, out, null, null));
    }

    /** The handler for one network connection: sessions opened on it are closed when it ends, even if the client was killed. */
    public FrameHandler connection() {
        return connection(null);
    }

    /**
     * As {@link #connection()}, for a peer that may not register memory servers when
     * {@code registrationRefused} is not null: it is the reason an attempt is refused with.
     */
    public FrameHandler connection(String registrationRefused) {
        LongArrayList opened = new LongArrayList();
        return new FrameHandler() {
            @Override
            public ByteBuffer handle(ByteBuffer request) {
                return Frames.serve(request, 1, MasterCalls.LAST, (type, in, out) -> dispatch(type, in, out, opened, registrationRefused));
            }

            @Override
            public void close() {
                for (int i = 0; i < opened.size(); i++) {
                    master.closeSession(opened.getLong(i));
                }
            }
        };
    }

    private void dispatch(int type, WireBuffer in, WireBuffer out, LongArrayList opened, String registrationRefused) {
        switch (type) {
            case MasterCalls.OPEN_SESSION -> {
                String name = in.getString();
                in.expectEnd();
                long session = master.openSession(name.isEmpty() ? null : name);
                if (opened != null) {
                    opened.add(session);
                }
                out.putLong(session);
            }
            case MasterCalls.CLOSE_SESSION -> {
                long session = in.getLong();
                in.expectEnd();
                master.closeSession(session);
            }
            case MasterCalls.CLIENTS -> {
                in.expectEnd();
                MasterCalls.putClients(out, master.clients());
            }
            case MasterCalls.REGISTER_SERVER -> {
                ServerRegistration registration = MasterCalls.getRegistration(in);
                in.expectEnd();
                if (registrationRefused != null) {
                    throw ErrorCode.UNAUTHORIZED.exception(registrationRefused);
                }
                out.putInt(master.registerServer(registration));
            }
            case MasterCalls.PERSIST -> {
                long session = in.getLong();
                long namespace = in.getLong();
                long address = in.getLong();
                long length = in.getLong();
                in.expectEnd();
                master.persist(session, namespace, address, length);
            }
            case MasterCalls.CLUSTER_INFO -> {
                in.expectEnd();
                ClusterInfo info = master.clusterInfo();
                out.putString(info.version()).putLong(info.uptimeMillis()).putInt(info.heartbeatAgeMillis().size());
                for (long age : info.heartbeatAgeMillis()) {
                    out.putLong(age);
                }
            }
            case MasterCalls.CHUNK_SIZE -> {
                in.expectEnd();
                out.putLong(master.chunkSizeBytes());
            }
            case MasterCalls.SERVERS -> {
                in.expectEnd();
                MasterCalls.putServers(out, master.servers());
            }
            case MasterCalls.CREATE_NAMESPACE -> {
                long session = in.getLong();
                String name = in.getString();
                int flags = in.getInt();
                in.expectEnd();
                MasterCalls.putNamespace(out, master.createNamespace(session, name, flags));
            }
            case MasterCalls.JOIN_NAMESPACE, MasterCalls.DELETE_NAMESPACE -> {
                long session = in.getLong();
                String name = in.getString();
                in.expectEnd();
                if (type == MasterCalls.JOIN_NAMESPACE) {
                    MasterCalls.putNamespace(out, master.joinNamespace(session, name));
                } else {
                    master.deleteNamespace(session, name);
                }
            }
            case MasterCalls.NAMESPACE_INFO -> {
                long session = in.getLong();
                long namespace = in.getLong();
                in.expectEnd();
                MasterCalls.putNamespace(out, master.namespaceInfo(session, namespace));
            }
            case MasterCalls.NAMESPACES -> {
                long session = in.getLong();
                in.expectEnd();
                MasterCalls.putNamespaces(out, master.namespaces(session));
            }
            case MasterCalls.RESERVE, MasterCalls.RELEASE -> {
                long session = in.getLong();
                long namespace = in.getLong();
                long bytes = in.getLong();
                in.expectEnd();
                out.putLong(type == MasterCalls.RESERVE ? master.reserve(session, namespace, bytes) : master.release(session, namespace, bytes));
            }
            case MasterCalls.ALLOC -> {
                long session = in.getLong();
                long namespace = in.getLong();
                long bytes = in.getLong();
                int flags = in.getInt();
                in.expectEnd();
                MasterCalls.putSegment(out, master.alloc(session, namespace, bytes, flags));
            }
            case MasterCalls.ALLOC_FROM_FILE -> {
                long session = in.getLong();
                long namespace = in.getLong();
                String file = in.getString();
                long offset = in.getLong();
                long length = in.getLong();
                in.expectEnd();
                if (opened != null) { // a network client: the file would be opened with the master process's rights
                    throw ErrorCode.UNSUPPORTED.exception("allocFromFile is taken only from clients in the master's own process");
                }
                MasterCalls.putSegment(out, master.allocFromFile(session, namespace, file, offset, length));
            }
            case MasterCalls.ALLOC_AT -> {
                long session = in.getLong();
                long namespace = in.getLong();
                long address = in.getLong();
                long bytes = in.getLong();
                int flags = in.getInt();
                in.expectEnd();
                MasterCalls.putSegment(out, master.allocAt(session, namespace, address, bytes, flags));
            }
            default -> { // FREE, LOOKUP, MAP, UNMAP: session, namespace, address
                long session = in.getLong();
                long namespace = in.getLong();
                long address = in.getLong();
                in.expectEnd();
                switch (type) {
                    case MasterCalls.FREE -> master.free(session, namespace, address);
                    case MasterCalls.LOOKUP -> MasterCalls.putSegment(out, master.lookup(session, namespace, address));
                    case MasterCalls.MAP -> MasterCalls.putSegment(out, master.map(session, namespace, address));
                    case MasterCalls.UNMAP -> master.unmap(session, namespace, address);
                    default -> throw WireBuffer.invalid("unknown call " + type);
                }
            }
        }
    }
}

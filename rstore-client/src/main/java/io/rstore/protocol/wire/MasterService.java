package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.MasterProtocol;

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

    /** Never throws: every outcome, including a bad frame, is an answer frame. */
    public ByteBuffer handle(ByteBuffer request) {
        Frames.Header header;
        try {
            header = Frames.read(request);
            if (header.kind() != Frames.REQUEST) {
                throw WireBuffer.invalid("the master takes requests, not frame kind " + header.kind());
            }
            if (header.type() < 1 || header.type() > MasterCalls.LAST) {
                throw WireBuffer.invalid("unknown call " + header.type());
            }
        } catch (RStoreException e) {
            return error(0, 0, e);
        }
        try {
            WireBuffer out = Frames.start(Frames.RESPONSE, header.type(), header.correlation());
            dispatch(header.type(), header.body(), out);
            return Frames.finish(out);
        } catch (RStoreException e) {
            return error(header.type(), header.correlation(), e);
        } catch (RuntimeException e) {
            return error(header.type(), header.correlation(), ErrorCode.UNKNOWN.exception(e.getClass().getSimpleName() + ": " + e.getMessage()));
        }
    }

    private void dispatch(int type, WireBuffer in, WireBuffer out) {
        switch (type) {
            case MasterCalls.OPEN_SESSION -> {
                String name = in.getString();
                in.expectEnd();
                out.putLong(master.openSession(name.isEmpty() ? null : name));
            }
            case MasterCalls.CLOSE_SESSION -> {
                long session = in.getLong();
                in.expectEnd();
                master.closeSession(session);
            }
            case MasterCalls.CHUNK_SIZE -> {
                in.expectEnd();
                out.putLong(master.chunkSizeBytes());
            }
            case MasterCalls.SERVERS -> {
                in.expectEnd();
                MasterCalls.putServers(out, master.servers());
            }
            case MasterCalls.CREATE_NAMESPACE, MasterCalls.JOIN_NAMESPACE, MasterCalls.DELETE_NAMESPACE -> {
                long session = in.getLong();
                String name = in.getString();
                in.expectEnd();
                if (type == MasterCalls.CREATE_NAMESPACE) {
                    MasterCalls.putNamespace(out, master.createNamespace(session, name));
                } else if (type == MasterCalls.JOIN_NAMESPACE) {
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

    private static ByteBuffer error(int type, long correlation, RStoreException e) {
        WireBuffer out = Frames.start(Frames.ERROR, type, correlation);
        out.putInt(e.code().code()).putString(truncate(e.detail()));
        return Frames.finish(out);
    }

    private static String truncate(String message) {
        String m = message == null ? "" : message;
        return m.length() > 4000 ? m.substring(0, 4000) + "..." : m;
    }
}

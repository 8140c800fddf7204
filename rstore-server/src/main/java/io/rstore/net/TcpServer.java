package io.rstore.net;

import io.rstore.ErrorCode;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.MasterService;
import io.rstore.transport.RegionTable;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

import it.unimi.dsi.fastutil.longs.LongArrayList;

/**
 * Serves RStore over TCP: master frames go to the {@link MasterService}, one-sided reads
 * and writes to the memory servers' region tables, each checked against key and bounds.
 * One thread per connection answers its frames in order. A malformed frame is answered
 * with INVALID_FRAME and the connection is closed; everyone else is served on.
 */
public final class TcpServer implements AutoCloseable {
    private static final int OPEN_SESSION = 1; // docs/protocol.md
    private final ServerSocketChannel listener;
    private final MasterService master;
    private final MasterProtocol sessions;
    private final IntFunction<RegionTable> regions;
    private final List<SocketChannel> connections = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean closed;

    /** {@code sessions} is the master behind {@code master}: sessions opened on a connection are closed when it ends. */
    public TcpServer(InetSocketAddress bind, MasterService master, MasterProtocol sessions, IntFunction<RegionTable> regions) throws IOException {
        this.listener = ServerSocketChannel.open().bind(bind);
        this.master = master;
        this.sessions = sessions;
        this.regions = regions;
        this.acceptor = Thread.ofPlatform().name("rstore-accept").daemon().start(this::accept);
    }

    public int port() {
        try {
            return ((InetSocketAddress) listener.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void accept() {
        int n = 0;
        while (!closed) {
            try {
                SocketChannel channel = listener.accept();
                channel.socket().setTcpNoDelay(true);
                connections.add(channel);
                Thread.ofPlatform().name("rstore-conn-" + n++).daemon().start(() -> serve(channel));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("rstore: accept failed: " + e.getMessage());
                }
            }
        }
    }

    private void serve(SocketChannel channel) {
        LongArrayList opened = new LongArrayList(); // sessions this connection opened
        ByteBuffer frame = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer reply = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        try (channel) {
            while (!closed) {
                frame.clear().limit(4);
                if (!readFully(channel, frame)) {
                    return; // the peer closed
                }
                int length = frame.getInt(0);
                if (length < Frames.HEADER - 4 || length > Frames.MAX_FRAME) {
                    refuse(channel, "a frame of " + length + " bytes");
                    return;
                }
                if (frame.capacity() < 4 + length) {
                    frame = ByteBuffer.allocateDirect(4 + length).order(ByteOrder.LITTLE_ENDIAN).putInt(0, length);
                }
                frame.limit(4 + length).position(4);
                if (!readFully(channel, frame)) {
                    return;
                }
                frame.flip();
                int kind = frame.get(7);
                if (kind == Frames.DATA_REQUEST) {
                    reply = data(frame, reply);
                    if (reply == null) {
                        refuse(channel, "a malformed data request");
                        return;
                    }
                    writeFully(channel, reply);
                } else {
                    ByteBuffer answer = master.handle(frame);
                    if (answer.get(7) == 2 && answer.getShort(8) == OPEN_SESSION) {
                        opened.add(answer.order(ByteOrder.LITTLE_ENDIAN).getLong(Frames.HEADER));
                    }
                    writeFully(channel, answer);
                    if (answer.get(7) == 3 && answer.getShort(8) == 0) { // error to an unreadable frame: hang up
                        return;
                    }
                }
            }
        } catch (IOException e) {
            // the peer went away: nothing to answer
        } finally {
            connections.remove(channel);
            // a client that died (even by SIGKILL) leaves no references behind
            for (int i = 0; i < opened.size(); i++) {
                sessions.closeSession(opened.getLong(i));
            }
        }
    }

    /** Carries out one read or write; null when the frame is malformed. */
    private ByteBuffer data(ByteBuffer frame, ByteBuffer reply) {
        if (frame.remaining() < Frames.HEADER + Frames.DATA_REQUEST_BODY || frame.get(4) != 'S' || frame.get(5) != 'R' || frame.get(6) != 1) {
            return null;
        }
        int type = frame.getShort(8);
        long correlation = frame.getLong(10);
        int body = Frames.HEADER;
        int server = frame.getInt(body);
        int chunk = frame.getInt(body + 4);
        int key = frame.getInt(body + 8);
        long offset = frame.getLong(body + 12);
        long length = frame.getLong(body + 20);
        int payload = body + Frames.DATA_REQUEST_BODY;
        RegionTable table = regions.apply(server);
        if (length < 0 || length > Frames.MAX_FRAME - Frames.HEADER - Frames.DATA_RESPONSE_BODY) {
            return null;
        }
        int status;
        int replyBytes = Frames.HEADER + Frames.DATA_RESPONSE_BODY;
        if (type == Frames.WRITE) {
            if (frame.limit() - payload != length) {
                return null;
            }
            status = table == null ? ErrorCode.SERVER_UNAVAILABLE.code()
                    : table.write(chunk, key, offset, MemorySegment.ofBuffer(frame), payload, length);
        } else if (type == Frames.READ) {
            if (frame.limit() != payload) {
                return null;
            }
            if (reply.capacity() < replyBytes + length) {
                reply = ByteBuffer.allocateDirect((int) (replyBytes + length)).order(ByteOrder.LITTLE_ENDIAN);
            }
            reply.clear();
            status = table == null ? ErrorCode.SERVER_UNAVAILABLE.code()
                    : table.read(chunk, key, offset, MemorySegment.ofBuffer(reply), replyBytes, length);
            if (status == 0) {
                replyBytes += (int) length;
            }
        } else {
            return null;
        }
        reply.clear();
        Frames.writeHeader(reply, replyBytes - 4, Frames.DATA_RESPONSE, type, correlation);
        reply.putInt(status).limit(replyBytes).position(0);
        return reply;
    }

    private void refuse(SocketChannel channel, String what) throws IOException {
        ByteBuffer answer = master.handle(ByteBuffer.allocate(0)); // an INVALID_FRAME error frame
        writeFully(channel, answer);
        System.err.println("rstore: refused " + what + " from " + channel.getRemoteAddress() + "; connection closed");
    }

    private static boolean readFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                return false;
            }
        }
        return true;
    }

    private static void writeFully(SocketChannel channel, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        for (SocketChannel c : connections) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}

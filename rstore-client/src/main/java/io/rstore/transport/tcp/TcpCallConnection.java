package io.rstore.transport.tcp;

import io.rstore.ErrorCode;
import io.rstore.protocol.wire.FrameTransport;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One connection carrying request and response frames, one call at a time, each bounded
 * by a timeout: a client's (or memory server's) to the master, the master's to a memory
 * server. A lost peer is {@code unavailable} (MASTER_UNAVAILABLE or SERVER_UNAVAILABLE).
 */
public final class TcpCallConnection implements FrameTransport {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String peer;
    private final ErrorCode unavailable;

    /** To the master at host:port. */
    public static TcpCallConnection toMaster(String host, int port, int timeoutMs, String secret) {
        return new TcpCallConnection("the master at " + host + ":" + port, host, port, timeoutMs, secret, ErrorCode.MASTER_UNAVAILABLE);
    }

    /** To the memory server daemon at host:port. */
    public static TcpCallConnection toServer(String host, int port, int timeoutMs, String secret) {
        return new TcpCallConnection("the memory server at " + host + ":" + port, host, port, timeoutMs, secret, ErrorCode.SERVER_UNAVAILABLE);
    }

    private TcpCallConnection(String peer, String host, int port, int timeoutMs, String secret, ErrorCode unavailable) {
        this.peer = peer;
        this.unavailable = unavailable;
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw unavailable.exception("cannot reach " + peer + ": " + e.getMessage());
        }
        try {
            Handshake.clientSide(in, out, secret, peer);
        } catch (IOException | RuntimeException e) {
            close();
            if (e instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw unavailable.exception(peer + " broke off the handshake: " + e.getMessage());
        }
    }

    @Override
    public synchronized ByteBuffer call(ByteBuffer request) {
        try {
            byte[] bytes = new byte[request.remaining()];
            request.get(bytes);
            out.write(bytes);
            out.flush();
            byte[] lengthBytes = new byte[4];
            ((DataInputStream) in).readFully(lengthBytes);
            int length = ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getInt();
            if (length < Frames.HEADER - 4 || length > Frames.MAX_FRAME) {
                throw ErrorCode.INVALID_FRAME.exception(peer + " sent a frame of " + length + " bytes");
            }
            byte[] frame = new byte[4 + length];
            System.arraycopy(lengthBytes, 0, frame, 0, 4);
            ((DataInputStream) in).readFully(frame, 4, length);
            return ByteBuffer.wrap(frame);
        } catch (SocketTimeoutException e) {
            throw ErrorCode.TIMED_OUT.exception(peer + " did not answer within " + timeout() + " ms");
        } catch (IOException e) {
            throw unavailable.exception("lost the connection to " + peer + ": " + e.getMessage());
        }
    }

    private int timeout() {
        try {
            return socket.getSoTimeout();
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

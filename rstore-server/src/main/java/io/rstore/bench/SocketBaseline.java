package io.rstore.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * What a plain socket does on this machine, for the tcp figures to stand beside: an
 * 8-byte ping-pong with both sides polling and with both sides blocking, and a bulk
 * one-way transfer. Runs between two threads of this process over loopback.
 */
final class SocketBaseline {
    private SocketBaseline() {
    }

    /** Percentiles of round trips of {@code bytes} echoed back, {@code ops} times. */
    static Percentiles pingPong(int bytes, int ops, boolean polling) throws IOException, InterruptedException {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Thread echo = Thread.ofPlatform().daemon().start(() -> {
                try (SocketChannel c = listener.accept()) {
                    c.configureBlocking(!polling);
                    c.socket().setTcpNoDelay(true);
                    ByteBuffer b = ByteBuffer.allocateDirect(bytes);
                    for (int i = 0; i < ops + 1000; i++) {
                        b.clear();
                        while (b.hasRemaining()) {
                            if (c.read(b) < 0) {
                                return;
                            }
                        }
                        b.flip();
                        while (b.hasRemaining()) {
                            c.write(b);
                        }
                    }
                } catch (IOException e) {
                    // the bench ended
                }
            });
            try (SocketChannel c = SocketChannel.open(listener.getLocalAddress())) {
                c.configureBlocking(!polling);
                c.socket().setTcpNoDelay(true);
                ByteBuffer b = ByteBuffer.allocateDirect(bytes);
                long[] samples = new long[ops];
                for (int i = -1000; i < ops; i++) { // the first thousand warm up
                    long start = System.nanoTime();
                    b.clear();
                    while (b.hasRemaining()) {
                        c.write(b);
                    }
                    b.clear();
                    while (b.hasRemaining()) {
                        if (c.read(b) < 0) {
                            throw new IOException("echo closed");
                        }
                    }
                    if (i >= 0) {
                        samples[i] = System.nanoTime() - start;
                    }
                }
                echo.join(5_000);
                return Percentiles.of(samples);
            }
        }
    }

    /** GB/s of {@code total} bytes sent one way in {@code chunk}-byte writes. */
    static double bulk(long total, int chunk) throws IOException, InterruptedException {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            Thread sink = Thread.ofPlatform().daemon().start(() -> {
                try (SocketChannel c = listener.accept()) {
                    ByteBuffer b = ByteBuffer.allocateDirect(chunk);
                    long received = 0;
                    while (received < total) {
                        b.clear();
                        int n = c.read(b);
                        if (n < 0) {
                            return;
                        }
                        received += n;
                    }
                    c.write(ByteBuffer.wrap(new byte[] {1}));
                } catch (IOException e) {
                    // the bench ended
                }
            });
            try (SocketChannel c = SocketChannel.open(listener.getLocalAddress())) {
                ByteBuffer b = ByteBuffer.allocateDirect(chunk);
                long start = System.nanoTime();
                for (long sent = 0; sent < total; ) {
                    b.clear().limit((int) Math.min(chunk, total - sent));
                    while (b.hasRemaining()) {
                        sent += c.write(b);
                    }
                }
                c.read(ByteBuffer.allocate(1)); // the sink has everything
                double gbps = total / ((System.nanoTime() - start) / 1e9) / 1e9;
                sink.join(5_000);
                return gbps;
            }
        }
    }
}

package io.rstore.bench;

import io.rstore.memory.NativeMemory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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

    /**
     * GB/s of {@code total} bytes sent one way, out of a {@code buffer}-byte memory area
     * and into another of the same size (each walked through in 4 MiB steps), so that, as
     * in a large RStore read, the bytes come from and land in memory rather than in a
     * cache-resident buffer reused for every write.
     */
    static double bulk(long total, long buffer) throws IOException, InterruptedException {
        int step = (int) Math.min(4L << 20, buffer);
        try (Arena arena = Arena.ofShared(); ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            // the same kind of memory as RStore's chunks and mappings (huge pages where the OS gives them)
            MemorySegment from = NativeMemory.allocate(arena, buffer).fill((byte) 1);
            MemorySegment into = NativeMemory.allocate(arena, buffer).fill((byte) 0);
            Thread sink = Thread.ofPlatform().daemon().start(() -> {
                try (SocketChannel c = listener.accept()) {
                    long received = 0;
                    while (received < total) {
                        long at = received % buffer;
                        ByteBuffer b = into.asSlice(at, Math.min(step, buffer - at)).asByteBuffer();
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
                long start = System.nanoTime();
                for (long sent = 0; sent < total; ) {
                    long at = sent % buffer;
                    ByteBuffer b = from.asSlice(at, Math.min(Math.min(step, buffer - at), total - sent)).asByteBuffer();
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

package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The emulated device behaves as the verbs it stands for: rkey and range checked by the responder, completions in order. */
@Timeout(60)
class EmulatedDeviceTest {
    private final EmulatedDevice server = new EmulatedDevice();
    private final EmulatedDevice client = new EmulatedDevice();
    private final Arena arena = Arena.ofShared();
    private final List<long[]> completions = new ArrayList<>();

    @AfterEach
    void close() {
        client.close();
        server.close();
        arena.close();
    }

    private QueuePair connect(RdmaDevice.Listener listener) {
        return client.connect(new InetSocketAddress("127.0.0.1", listener.port()), 5_000, (wrId, status) -> completions.add(new long[] {wrId, status}));
    }

    private void reap(QueuePair qp, int count) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (completions.size() < count && System.nanoTime() < deadline) {
            qp.poll();
        }
        assertEquals(count, completions.size(), "completions within 5 s");
    }

    @Test
    void shouldReadAndWriteRegisteredMemoryOneSidedAndCheckEveryAccess() {
        MemorySegment remote = arena.allocate(1 << 20, 64);
        MemoryRegion region = server.register(remote);
        RdmaDevice.Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), () -> (request, response) -> { });
        MemorySegment local = arena.allocate(1 << 20, 64);
        try (QueuePair qp = connect(listener)) {
            for (long i = 0; i < 1 << 20; i += 8) {
                local.set(ValueLayout.JAVA_LONG, i, i * 7);
            }
            qp.postWrite(1, local, 0, region.address(), region.rkey(), 1 << 20);
            qp.postRead(2, local, 0, region.address() + 8, region.rkey(), 8);                  // in order: sees the write
            qp.postRead(3, local, 16, region.address(), region.rkey() ^ 1, 8);                  // wrong rkey
            qp.postRead(4, local, 16, region.address() + (1 << 20) - 4, region.rkey(), 8);      // past the region's end
            qp.postWrite(5, local, 16, region.address() - 8, region.rkey(), 8);                 // before its start
            reap(qp, 5);
            assertEquals(1000 * 8 * 7, remote.get(ValueLayout.JAVA_LONG, 1000 * 8), "the write landed in the registered memory");
            assertEquals(56, local.get(ValueLayout.JAVA_LONG, 0), "the read brought back the written bytes");
            assertEquals(List.of(1L, 2L, 3L, 4L, 5L), completions.stream().map(c -> c[0]).toList(), "completed in posting order");
            assertEquals(List.of(0L, 0L, (long) ErrorCode.UNAUTHORIZED.code(), (long) ErrorCode.OUT_OF_BOUNDS.code(),
                    (long) ErrorCode.OUT_OF_BOUNDS.code()), completions.stream().map(c -> c[1]).toList());

            server.deregister(region); // revoked: the old rkey reaches nothing
            completions.clear();
            qp.postRead(6, local, 0, region.address(), region.rkey(), 8);
            reap(qp, 1);
            assertEquals(ErrorCode.UNAUTHORIZED.code(), completions.getFirst()[1]);
        }
    }

    @Test
    void shouldAnswerSendsAndFlushWorkInErrorWhenThePeerDies() {
        RdmaDevice.Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), () -> (request, response) -> {
            int n = request.getInt();
            response.putInt(n * 2).putInt(n + 1);
        });
        MemorySegment remote = arena.allocate(4096, 64);
        MemoryRegion region = server.register(remote);
        MemorySegment local = arena.allocate(4096, 64);
        try (QueuePair qp = connect(listener)) {
            ByteBuffer answer = qp.call(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 21), 5_000); // messages are little-endian
            assertEquals(42, answer.getInt(0));
            assertEquals(22, answer.getInt(4));

            server.close(); // the peer's device goes away with work in flight
            for (int i = 0; i < 10; i++) {
                qp.postWrite(100 + i, local, 0, region.address(), region.rkey(), 4096);
            }
            reap(qp, 10);
            assertTrue(completions.stream().allMatch(c -> c[1] == ErrorCode.SERVER_UNAVAILABLE.code() || c[1] == 0), "flushed in error");
            assertEquals(ErrorCode.SERVER_UNAVAILABLE.code(), completions.getLast()[1]);
        }
    }
}

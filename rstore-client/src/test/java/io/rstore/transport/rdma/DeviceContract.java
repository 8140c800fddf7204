package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a verbs device does, checked the same way on every {@link RdmaDevice}: the emulated
 * one in every build ({@link EmulatedDeviceTest}) and DiSNI on a real device where there is
 * one ({@link DisniDeviceTest}, run on SoftRoCE by bin/test-rdma). The rules are a NIC's:
 * local memory must be registered and in range, remote memory must match its rkey, the
 * first failure puts the queue pair in the error state and flushes the rest, a peer that
 * goes away flushes what is in flight, a listener on port 0 reports its port.
 */
@Timeout(120)
abstract class DeviceContract {
    private static final int MiB = 1 << 20;
    /**
     * Emulation (bin/test-rdma's guest) is many times slower than a machine, so bounds
     * stretch by RSTORE_TEST_TIME_SCALE, but never up to the failures they guard against:
     * a peer that went away flushed after the ~35 s retry timeout, and close waited for the
     * 30 s operation timeout.
     */
    private static final int SCALE = Integer.parseInt(System.getenv().getOrDefault("RSTORE_TEST_TIME_SCALE", "1"));
    private static final long FLUSH_BOUND_MS = Math.min(10_000L * SCALE, 25_000);
    private static final long CLOSE_BOUND_MS = Math.min(5_000L * SCALE, 20_000);
    private final Arena arena = Arena.ofShared();
    private final List<long[]> completions = new ArrayList<>();
    private RdmaDevice server;
    private RdmaDevice client;

    /** A fresh device. */
    abstract RdmaDevice open();

    /** The address listeners bind to and clients connect to (a soft RDMA device needs its own, not 127.0.0.1). */
    abstract String address();

    @BeforeEach
    void openDevices() {
        server = open();
        client = open();
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        arena.close();
    }

    private RdmaDevice.Listener listen(RdmaDevice.RequestHandler handler) {
        return listen(() -> handler);
    }

    /** A handler of its own for each queue pair. */
    private RdmaDevice.Listener listen(Supplier<RdmaDevice.RequestHandler> handlers) {
        RdmaDevice.Listener listener = server.listen(new InetSocketAddress(address(), 0), handlers);
        assertNotEquals(0, listener.port(), "a listener asked for port 0 reports the port it got");
        return listener;
    }

    private QueuePair connect(RdmaDevice.Listener listener) {
        return client.connect(new InetSocketAddress(address(), listener.port()), 10_000, (wrId, status) -> completions.add(new long[] {wrId, status}));
    }

    private void reap(QueuePair qp, int count) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (completions.size() < count && System.nanoTime() < deadline) {
            qp.poll();
        }
        assertEquals(count, completions.size(), "completions within 30 s");
    }

    private List<Long> statuses() {
        return completions.stream().map(c -> c[1]).toList();
    }

    @Test
    void shouldReadAndWriteRegisteredMemoryOneSidedInPostingOrder() {
        RdmaDevice.Listener listener = listen((request, response) -> { });
        MemorySegment remote = arena.allocate(MiB, 4096);
        MemoryRegion region = server.register(remote);
        try (QueuePair qp = connect(listener)) {
            MemorySegment local = arena.allocate(MiB, 4096);
            MemoryRegion mine = client.register(local);
            for (long i = 0; i < MiB; i += 8) {
                local.set(ValueLayout.JAVA_LONG, i, i * 7);
            }
            qp.postWrite(1, local.address(), mine.lkey(), region.address(), region.rkey(), MiB);
            qp.postRead(2, local.address() + 64, mine.lkey(), region.address() + 8, region.rkey(), 8); // in order: sees the write
            reap(qp, 2);
            assertEquals(List.of(1L, 2L), completions.stream().map(c -> c[0]).toList(), "completed in posting order");
            assertEquals(List.of(0L, 0L), statuses());
            assertEquals(1000 * 8 * 7, remote.get(ValueLayout.JAVA_LONG, 1000 * 8), "the write landed in the registered memory");
            assertEquals(56, local.get(ValueLayout.JAVA_LONG, 64), "the read brought back the written bytes");
            assertFalse(qp.failed());
        }
    }

    @Test
    void shouldRefuseLocalMemoryNotRegisteredOrPastItsRegionAndFlushWhatFollows() {
        RdmaDevice.Listener listener = listen((request, response) -> { });
        MemoryRegion region = server.register(arena.allocate(MiB, 4096));
        MemorySegment local = arena.allocate(2 * MiB, 4096);
        try (QueuePair qp = connect(listener)) {
            MemoryRegion small = client.register(local.asSlice(0, 4096)); // as a stale cache would: the first mapping's size
            qp.postRead(1, local.address(), small.lkey(), region.address(), region.rkey(), 4096);
            qp.postRead(2, local.address(), small.lkey(), region.address(), region.rkey(), 8192); // runs past the local region
            qp.postRead(3, local.address(), small.lkey(), region.address(), region.rkey(), 8);    // after the failure
            reap(qp, 3);
            assertEquals(List.of((long) QueuePair.SUCCESS, (long) QueuePair.LOCAL_PROTECTION_ERROR, (long) QueuePair.FLUSHED), statuses());
            assertTrue(qp.failed(), "a failed work request puts the queue pair in the error state");
        }
        completions.clear();
        try (QueuePair qp = connect(listener)) {
            MemoryRegion gone = client.register(local.asSlice(MiB, 4096));
            client.deregister(gone);
            qp.postWrite(4, local.address() + MiB, gone.lkey(), region.address(), region.rkey(), 64); // a deregistered lkey
            reap(qp, 1);
            long status = statuses().getFirst(); // a local error either way: rxe names an unknown lkey LOC_QP_OP_ERR, mlx5 LOC_PROT_ERR
            assertTrue(status == QueuePair.LOCAL_PROTECTION_ERROR || status == QueuePair.LOCAL_QP_OPERATION_ERROR, "status " + status);
            assertTrue(qp.failed());
        }
    }

    @Test
    void shouldWriteOutOfReadOnlyMemoryButNotReadIntoIt() {
        RdmaDevice.Listener listener = listen((request, response) -> { });
        MemorySegment remote = arena.allocate(4096, 4096);
        MemoryRegion region = server.register(remote);
        MemorySegment local = arena.allocate(4096, 4096);
        local.set(ValueLayout.JAVA_LONG, 0, 4242);
        try (QueuePair qp = connect(listener)) {
            MemoryRegion readOnly = client.register(local.asReadOnly());
            qp.postWrite(1, local.address(), readOnly.lkey(), region.address(), region.rkey(), 4096);
            qp.postRead(2, local.address(), readOnly.lkey(), region.address(), region.rkey(), 8);
            reap(qp, 2);
            assertEquals(QueuePair.SUCCESS, (int) (long) statuses().getFirst());
            assertEquals(4242, remote.get(ValueLayout.JAVA_LONG, 0));
            assertEquals(QueuePair.LOCAL_PROTECTION_ERROR, (int) (long) statuses().getLast(), "nothing lands in read-only memory");
        }
    }

    @Test
    void shouldRefuseRemoteAccessOutsideTheRkeysRegionAndFlushWhatFollows() {
        RdmaDevice.Listener listener = listen((request, response) -> { });
        MemorySegment remote = arena.allocate(MiB, 4096);
        MemoryRegion region = server.register(remote);
        MemorySegment local = arena.allocate(MiB, 4096);
        for (long[] access : new long[][] {
                {region.address(), region.rkey() ^ 0x5a5a0000},     // a wrong rkey
                {region.address() + MiB - 4, region.rkey()},        // past the region's end
        }) {
            completions.clear();
            try (QueuePair qp = connect(listener)) {
                MemoryRegion mine = client.register(local);
                qp.postRead(1, local.address(), mine.lkey(), access[0], (int) access[1], 8);
                qp.postWrite(2, local.address(), mine.lkey(), region.address(), region.rkey(), 8);
                reap(qp, 2);
                assertEquals(List.of((long) QueuePair.REMOTE_ACCESS_ERROR, (long) QueuePair.FLUSHED), statuses());
                assertTrue(qp.failed());
                client.deregister(mine);
            }
        }
        server.deregister(region); // revoked: the old rkey reaches nothing
        completions.clear();
        try (QueuePair qp = connect(listener)) {
            MemoryRegion mine = client.register(local);
            qp.postRead(3, local.address(), mine.lkey(), region.address(), region.rkey(), 8);
            reap(qp, 1);
            assertEquals(List.of((long) QueuePair.REMOTE_ACCESS_ERROR), statuses());
        }
    }

    @Test
    void shouldAnswerSendsAndFlushWorkWhenThePeerGoesAway() {
        RdmaDevice.Listener listener = listen((request, response) -> {
            int n = request.order(ByteOrder.LITTLE_ENDIAN).getInt();
            response.order(ByteOrder.LITTLE_ENDIAN).putInt(n * 2).putInt(n + 1);
        });
        MemoryRegion region = server.register(arena.allocate(64 * MiB, 4096));
        try (QueuePair qp = connect(listener)) {
            MemorySegment local = arena.allocate(64 * MiB, 4096);
            MemoryRegion mine = client.register(local);
            ByteBuffer answer = qp.call(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 21), 10_000);
            assertEquals(42, answer.order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            assertEquals(22, answer.getInt(4));

            for (int i = 0; i < 4; i++) {
                qp.postWrite(100 + i, local.address(), mine.lkey(), region.address(), region.rkey(), 64 * MiB);
            }
            long start = System.nanoTime();
            server.close(); // the peer goes away, perhaps with writes in flight
            for (int i = 4; i < 16; i++) {
                qp.postWrite(100 + i, local.address(), mine.lkey(), region.address(), region.rkey(), 64 * MiB);
            }
            reap(qp, 16);
            long tookMs = (System.nanoTime() - start) / 1_000_000;
            assertTrue(tookMs < FLUSH_BOUND_MS, "flushed within " + FLUSH_BOUND_MS + " ms of the peer going away, not after the retry timeout: "
                    + tookMs + " ms");
            assertEquals(QueuePair.FLUSHED, (int) (long) completions.getLast()[1], "the last work request was flushed: " + statuses());
            assertFalse(statuses().contains((long) QueuePair.RETRY_EXCEEDED), "flushed, not timed out by retries: " + statuses());
            assertTrue(qp.failed());
            RStoreException e = assertThrows(RStoreException.class, () -> qp.call(ByteBuffer.allocate(4), 10_000));
            assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code());
        }
    }

    /**
     * A listener's queue pair starts with small buffers: a larger SEND breaks it, as a NIC's
     * receive length error does. Once its handler asks for full-size messages (as the
     * master's does after authentication), a SEND of the largest message goes through.
     */
    @Test
    void shouldGiveAListenersQueuePairSmallBuffersUntilItsHandlerAsksForMore() {
        RdmaDevice.Listener listener = listen(() -> new RdmaDevice.RequestHandler() {
            private boolean grown;

            @Override
            public void handle(ByteBuffer request, ByteBuffer response) {
                response.order(ByteOrder.LITTLE_ENDIAN).putInt(request.remaining());
                grown |= request.remaining() == 1; // a one-byte request is the "admit me"
            }

            @Override
            public int messageBytes() {
                return grown ? RdmaDevice.MAX_MESSAGE : RdmaDevice.SMALL_MESSAGE;
            }
        });
        try (QueuePair small = connect(listener)) {
            ByteBuffer fits = small.call(ByteBuffer.allocate(RdmaDevice.SMALL_MESSAGE), 10_000);
            assertEquals(RdmaDevice.SMALL_MESSAGE, fits.order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            RStoreException e = assertThrows(RStoreException.class, () -> small.call(ByteBuffer.allocate(RdmaDevice.SMALL_MESSAGE + 1), 10_000),
                    "a SEND past the listener's small buffer breaks the queue pair");
            assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code());
        }
        try (QueuePair admitted = connect(listener)) {
            assertEquals(1, admitted.call(ByteBuffer.allocate(1), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            ByteBuffer largest = admitted.call(ByteBuffer.allocate(RdmaDevice.MAX_MESSAGE), 10_000);
            assertEquals(RdmaDevice.MAX_MESSAGE, largest.order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        }
    }

    /** A handler with a handshake: a one-byte request is the proof. It answers every request with the request's length. */
    private static final class ProvedByOneByte implements RdmaDevice.RequestHandler {
        private volatile boolean authenticated;

        @Override
        public void handle(ByteBuffer request, ByteBuffer response) {
            authenticated |= request.remaining() == 1;
            response.order(ByteOrder.LITTLE_ENDIAN).putInt(request.remaining());
        }

        @Override
        public boolean authenticated() {
            return authenticated;
        }
    }

    /**
     * A queue pair whose handler has not authenticated it within the handshake's bound is
     * closed by the listener; one that authenticated in time stays, however quiet.
     */
    @Test
    void shouldCloseAQueuePairNotAuthenticatedWithinTheHandshakesBound() throws InterruptedException {
        RdmaDevice.Listener listener = listen(ProvedByOneByte::new);
        try (QueuePair stranger = connect(listener); QueuePair member = connect(listener)) {
            assertEquals(2, stranger.call(ByteBuffer.allocate(2), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "served meanwhile");
            assertEquals(1, member.call(ByteBuffer.allocate(1), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            Thread.sleep(RdmaDevice.HANDSHAKE_MS + 1_000);
            RStoreException e = assertThrows(RStoreException.class, () -> stranger.call(ByteBuffer.allocate(2), 10_000),
                    "still unauthenticated past the bound: closed");
            assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code());
            assertEquals(3, member.call(ByteBuffer.allocate(3), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "authenticated: kept");
        }
    }

    /**
     * Queue pairs that never authenticate have a budget of their own: past it the one that
     * waited longest is closed for the newcomer, so a flood of them neither keeps a client
     * that authenticates out nor takes its place once it is in. Past the authenticated
     * limit, one more is closed.
     */
    @Test
    void shouldKeepUnauthenticatedQueuePairsToABudgetOfTheirOwn() {
        RdmaDevice.ListenerLimits limits = new RdmaDevice.ListenerLimits(2, 3, 3, 60_000);
        RdmaDevice.Listener listener = server.listen(new InetSocketAddress(address(), 0), ProvedByOneByte::new, limits);
        List<QueuePair> open = new ArrayList<>();
        try {
            List<QueuePair> flood = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                flood.add(connect(listener));
            }
            open.addAll(flood);
            QueuePair member = connect(listener); // closes the oldest silent one left, and authenticates at once
            open.add(member);
            assertEquals(1, member.call(ByteBuffer.allocate(1), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            for (int i = 0; i < 6; i++) {
                open.add(connect(listener));
            }
            assertEquals(3, member.call(ByteBuffer.allocate(3), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "authenticated: kept");
            for (QueuePair first : flood.subList(0, 3)) {
                awaitClosed(first, "a silent queue pair past the pending budget, for newer ones");
            }
            QueuePair newest = open.getLast();
            assertEquals(2, newest.call(ByteBuffer.allocate(2), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "the newest is served");

            QueuePair second = connect(listener);
            open.add(second);
            assertEquals(1, second.call(ByteBuffer.allocate(1), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "the second one to authenticate");
            QueuePair third = connect(listener);
            open.add(third);
            RStoreException e = assertThrows(RStoreException.class, () -> third.call(ByteBuffer.allocate(1), 10_000),
                    "a third one to authenticate is past the limit of two");
            assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code());
            assertEquals(4, member.call(ByteBuffer.allocate(4), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            assertEquals(5, second.call(ByteBuffer.allocate(5), 10_000).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
        } finally {
            open.forEach(QueuePair::close);
        }
    }

    /** Waits (bounded) until {@code qp}'s listener has closed it: a call then fails as the peer went away. */
    private static void awaitClosed(QueuePair qp, String what) {
        long deadline = System.nanoTime() + FLUSH_BOUND_MS * 1_000_000L;
        while (true) {
            try {
                qp.call(ByteBuffer.allocate(2), FLUSH_BOUND_MS);
            } catch (RStoreException e) {
                assertEquals(ErrorCode.SERVER_UNAVAILABLE, e.code(), e.getMessage());
                return;
            }
            assertTrue(System.nanoTime() < deadline, what + ": still served " + FLUSH_BOUND_MS + " ms on");
            LockSupport.parkNanos(50_000_000L);
        }
    }

    /**
     * Closing does not wait on idle responders one after another: a responder idle for
     * seconds waits for its next request in long slices (a wake-up a second, DiSNI's), and
     * the close must wake it, or forty of them would take forty seconds.
     */
    @Test
    void shouldCloseAtOnceWithListenersAndConnectionsOpen() throws InterruptedException {
        RdmaDevice.Listener listener = listen((request, response) -> { });
        for (int i = 0; i < 40; i++) {
            connect(listener).call(ByteBuffer.allocate(4), 10_000);
        }
        Thread.sleep(3_000); // idle: the responders' waits grew to their longest
        long start = System.nanoTime();
        client.close();
        server.close();
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs < CLOSE_BOUND_MS, "closing took " + tookMs + " ms (bound " + CLOSE_BOUND_MS + " ms)");
    }

    /** DiSNI passes a region's length as an int: every device refuses more (the emulated one as strictly), and LocalRegions registers pieces. */
    @Test
    void shouldRefuseARegionPastAnIntsLength() throws java.io.IOException {
        RdmaDevice.Listener listener = listen((request, response) -> { });
        java.nio.file.Path file = java.nio.file.Files.createTempFile("region", ".sparse");
        try (QueuePair qp = connect(listener); java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            MemorySegment large = channel.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, (2L << 30) + 4096, arena); // sparse: nothing touched
            RStoreException e = assertThrows(RStoreException.class, () -> client.register(large));
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("at most 2 GiB per region"), e.getMessage());
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    @Test
    void shouldRefuseConnectionParametersDisniCannotCarry() {
        RStoreException e = assertThrows(RStoreException.class, () -> new RdmaDevice.Connections(7, 7, 16, 16));
        assertEquals(ErrorCode.UNSUPPORTED, e.code());
        assertTrue(e.getMessage().contains("Operation currently not supported"), e.getMessage());
    }
}

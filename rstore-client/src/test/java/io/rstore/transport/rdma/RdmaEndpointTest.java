package io.rstore.transport.rdma;

import io.rstore.Completion;
import io.rstore.ErrorCode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An endpoint whose server died, on a device that behaves as DiSNI does towards a dead host:
 * its connect waits out whatever bound it is given (on SoftRoCE the next read after a
 * killed server waited the 30 s operation timeout, under the endpoint's lock). The
 * reconnect is bounded by {@link RdmaEndpoint.RECONNECT_BOUND_MS}, and posts in the
 * backoff after it fail at once without connecting again.
 */
@Timeout(60)
class RdmaEndpointTest {
    private final Arena arena = Arena.ofShared();
    private final EmulatedDevice server = new EmulatedDevice("");
    private final DeadHostDevice client = new DeadHostDevice(new EmulatedDevice(""));

    @AfterEach
    void close() {
        client.close();
        server.close();
        arena.close();
    }

    /** The emulated device, but once {@link #dead} its connect waits the whole bound and fails, as a connection manager facing a dead host does. */
    private static final class DeadHostDevice implements RdmaDevice {
        private final RdmaDevice live;
        volatile boolean dead;
        volatile boolean waits = true;
        volatile long lastBoundMs;
        volatile int connects;

        DeadHostDevice(RdmaDevice live) {
            this.live = live;
        }

        @Override
        public QueuePair connect(InetSocketAddress peer, long timeoutMs, QueuePair.CompletionSink sink) {
            connects++;
            lastBoundMs = timeoutMs;
            if (!dead) {
                return live.connect(peer, timeoutMs, sink);
            }
            try {
                Thread.sleep(waits ? timeoutMs : 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw ErrorCode.SERVER_UNAVAILABLE.exception("cannot connect to the RDMA listener at " + peer + " within " + timeoutMs + " ms");
        }

        @Override
        public String kind() {
            return live.kind();
        }

        @Override
        public MemoryRegion register(MemorySegment memory) {
            return live.register(memory);
        }

        @Override
        public void deregister(MemoryRegion region) {
            live.deregister(region);
        }

        @Override
        public Listener listen(InetSocketAddress at, Supplier<RequestHandler> handlers, ListenerLimits limits) {
            return live.listen(at, handlers, limits);
        }

        @Override
        public void close() {
            live.close();
        }
    }

    private static int post(RdmaEndpoint endpoint, MemorySegment local, int key) {
        Completion c = new Completion();
        endpoint.postRead(0, 1, 0, local, key, 0, 8, c);
        return c.status().code();
    }

    @Test
    void shouldBoundTheReconnectToALostServerAndNotRetryItAtEveryPost() throws Exception {
        RdmaDevice.Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), () -> (ByteBuffer request, ByteBuffer response) -> { });
        LocalRegions regions = new LocalRegions();
        MemorySegment local = arena.allocate(4096, 4096);
        int key = regions.register(local);
        RdmaEndpoint endpoint = new RdmaEndpoint(client, new InetSocketAddress("127.0.0.1", listener.port()), () -> null, regions, "a test server", 30_000);
        listener.close();
        server.close(); // the server is gone: its connections end
        client.dead = true;

        long start = System.nanoTime();
        assertTrue(post(endpoint, local, key) != 0, "the post that finds the server gone fails");
        long reconnecting = System.nanoTime();
        assertEquals(ErrorCode.SERVER_UNAVAILABLE.code(), post(endpoint, local, key), "the post that reconnects to a dead server fails");
        long reconnected = System.nanoTime();
        assertEquals(1, client.connects - 1, "one reconnect");
        assertEquals(RdmaEndpoint.RECONNECT_BOUND_MS, client.lastBoundMs, "the reconnect's bound, not the 30 s operation timeout");
        assertTrue(reconnected - start < TimeUnit.MILLISECONDS.toNanos(RdmaEndpoint.RECONNECT_BOUND_MS + 2_000),
                "the reconnect took " + (reconnected - reconnecting) / 1_000_000 + " ms");

        long backoff = System.nanoTime();
        assertEquals(ErrorCode.SERVER_UNAVAILABLE.code(), post(endpoint, local, key));
        assertTrue(System.nanoTime() - backoff < TimeUnit.MILLISECONDS.toNanos(200), "a post in the backoff fails at once");
        assertEquals(1, client.connects - 1, "and connects to nothing");

        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(RdmaEndpoint.RECONNECT_BACKOFF_NANOS) + 100);
        client.waits = false;
        assertEquals(ErrorCode.SERVER_UNAVAILABLE.code(), post(endpoint, local, key));
        assertEquals(2, client.connects - 1, "after the backoff it tries again: a restarted server is found");
        endpoint.close();
    }
}

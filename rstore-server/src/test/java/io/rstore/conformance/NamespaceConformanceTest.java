package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.protocol.NamespaceInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static io.rstore.conformance.Expect.error;
import static io.rstore.conformance.TestCluster.CHUNK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NamespaceConformanceTest {

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldCreateJoinListAndDeleteNamespaces(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            RStore a = cluster.client();
            RStore b = cluster.client();
            Namespace created = a.createNamespace("graphs");
            Namespace joined = b.joinNamespace("graphs");
            assertEquals(created.id(), joined.id());
            assertEquals("graphs", joined.name());
            assertEquals(1, a.namespaces().size());
            b.deleteNamespace("graphs");
            assertTrue(a.namespaces().isEmpty());
            error(ErrorCode.NO_SUCH_NAMESPACE, () -> created.reserve(1));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseDuplicateAndMissingNamespaces(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            client.createNamespace("x");
            error(ErrorCode.NAMESPACE_EXISTS, () -> client.createNamespace("x"));
            error(ErrorCode.NO_SUCH_NAMESPACE, () -> client.joinNamespace("y"));
            error(ErrorCode.NO_SUCH_NAMESPACE, () -> client.deleteNamespace("y"));
            error(ErrorCode.INVALID_ARGUMENT, () -> client.createNamespace(""));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldNotConfuseARecreatedNamespaceWithTheDeletedOne(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            Namespace old = client.createNamespace("n");
            client.deleteNamespace("n");
            Namespace fresh = client.createNamespace("n");
            assertTrue(fresh.id() != old.id());
            error(ErrorCode.NO_SUCH_NAMESPACE, () -> old.alloc(64, AllocFlags.GROW));
            fresh.alloc(64, AllocFlags.GROW);
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldReserveWholeChunksAndReleaseThemFromTheEnd(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            Namespace ns = cluster.client().createNamespace("r");
            assertEquals(CHUNK, ns.reserve(1));
            assertEquals(3 * CHUNK, ns.reserve(CHUNK + 1));
            assertEquals(CHUNK, ns.release(2 * CHUNK));
            assertEquals(0, ns.release(1));
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.release(1));
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.reserve(0));
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.reserve(-5));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldAllocateFirstFitAndReuseFreedRanges(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            Namespace ns = cluster.client().createNamespace("a");
            ns.reserve(CHUNK);
            RAddress a = ns.alloc(100);
            RAddress b = ns.alloc(64);
            RAddress c = ns.alloc(1000);
            assertEquals(0, a.address());
            assertEquals(128, b.address(), "segments are 64-byte aligned");
            assertEquals(192, c.address());
            assertEquals(100, a.length());
            ns.free(a);
            assertEquals(0, ns.alloc(64).address(), "first fit reuses the freed hole");
            assertEquals(64, ns.alloc(64).address());
            ns.free(b);
            ns.free(c);
            // the freed ranges coalesce into one hole large enough for 1128 bytes
            assertEquals(128, ns.alloc(1128).address());
            NamespaceInfo info = ns.info();
            assertEquals(3, info.segments());
            assertEquals(64 + 64 + 1128, info.allocatedBytes());
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseAllocationsBeyondTheReservationUnlessAskedToGrow(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            Namespace ns = cluster.client().createNamespace("g");
            RStoreException e = error(ErrorCode.INSUFFICIENT_RESERVATION, () -> ns.alloc(10));
            assertTrue(e.getMessage().contains("reserve more"), e.getMessage());
            ns.reserve(CHUNK);
            ns.alloc(CHUNK - 64);
            error(ErrorCode.INSUFFICIENT_RESERVATION, () -> ns.alloc(128));
            RAddress grown = ns.alloc(3 * CHUNK, AllocFlags.GROW);
            assertEquals(CHUNK - 64, grown.address(), "GROW extends the free tail rather than leaving a hole");
            assertEquals(4 * CHUNK, ns.info().reservedBytes());
            error(ErrorCode.INSUFFICIENT_RESERVATION, () -> ns.allocAt(8 * CHUNK, 64, AllocFlags.NONE));
            assertEquals(8 * CHUNK, ns.allocAt(8 * CHUNK, 64, AllocFlags.GROW).address());
            assertEquals(9 * CHUNK, ns.info().reservedBytes());
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseOverlappingAllocAt(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            Namespace ns = cluster.client().createNamespace("o");
            ns.reserve(CHUNK);
            ns.allocAt(1024, 1024, AllocFlags.NONE);
            error(ErrorCode.ADDRESS_IN_USE, () -> ns.allocAt(1024, 64, AllocFlags.NONE));
            error(ErrorCode.ADDRESS_IN_USE, () -> ns.allocAt(960, 128, AllocFlags.NONE));
            error(ErrorCode.ADDRESS_IN_USE, () -> ns.allocAt(2048 - 64, 64, AllocFlags.NONE));
            ns.allocAt(2048, 64, AllocFlags.NONE);
            ns.allocAt(960, 64, AllocFlags.NONE);
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.allocAt(100, 64, AllocFlags.NONE));
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.allocAt(-64, 64, AllocFlags.NONE));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRejectBadArgumentsWithClearErrors(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            Namespace ns = cluster.client().createNamespace("bad");
            ns.reserve(CHUNK);
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.alloc(0));
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.alloc(-1));
            error(ErrorCode.INVALID_ARGUMENT, () -> ns.alloc(64, 1 << 7));
            RAddress seg = ns.alloc(256);
            error(ErrorCode.INVALID_ARGUMENT, () -> seg.map(1 << 9));
            error(ErrorCode.INVALID_ADDRESS, () -> ns.raddress(64));
            error(ErrorCode.INVALID_ADDRESS, () -> ns.free(4096));
            error(ErrorCode.OUT_OF_BOUNDS, () -> RAddress.init(ns, seg.address(), 257));
            error(ErrorCode.OUT_OF_BOUNDS, () -> seg.map(200, 57, MapFlags.NONE));
            error(ErrorCode.OUT_OF_BOUNDS, () -> seg.map(0, 0, MapFlags.NONE));
            assertEquals(256, RAddress.init(ns, seg.address()).length());
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldFailReservationsAtomicallyWhenServersRunOutOfMemory(String transport) {
        var settings = TestCluster.settings(2).withServerCapacityBytes(4 * CHUNK);
        try (TestCluster cluster = TestCluster.start(transport, settings)) {
            RStore client = cluster.client();
            Namespace a = client.createNamespace("a");
            a.reserve(6 * CHUNK);
            Namespace b = client.createNamespace("b");
            error(ErrorCode.OUT_OF_MEMORY, () -> b.reserve(3 * CHUNK));
            assertEquals(0, b.info().reservedBytes(), "a failed reservation takes nothing");
            assertEquals(2 * CHUNK, b.reserve(2 * CHUNK), "what the failed call held went back to the pool");
            error(ErrorCode.OUT_OF_MEMORY, () -> b.alloc(CHUNK * 3, AllocFlags.GROW));
            a.release(6 * CHUNK);
            assertEquals(5 * CHUNK, b.reserve(3 * CHUNK), "released chunks are reused from the free pool");
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseToReleaseChunksThatHoldSegments(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            Namespace ns = cluster.client().createNamespace("rel");
            ns.reserve(3 * CHUNK);
            RAddress seg = ns.allocAt(2 * CHUNK + 64, 64, AllocFlags.NONE);
            error(ErrorCode.SEGMENT_IN_USE, () -> ns.release(1));
            ns.free(seg);
            assertEquals(2 * CHUNK, ns.release(1));
        }
    }
}

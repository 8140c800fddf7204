package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static io.rstore.conformance.Expect.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReferenceCountTest {

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseToFreeAMappedSegmentUntilEveryClientUnmaps(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            Namespace a = cluster.client().createNamespace("rc");
            Namespace b = cluster.client().joinNamespace("rc");
            RAddress seg = a.alloc(128, AllocFlags.GROW);
            Mapping ma = seg.map(MapFlags.NONE);
            Mapping mb1 = b.raddress(seg.address()).map(MapFlags.NONE);
            Mapping mb2 = b.raddress(seg.address()).map(0, 64, MapFlags.NONE);
            assertTrue(error(ErrorCode.SEGMENT_IN_USE, () -> a.free(seg)).getMessage().contains("mapped 3 time(s)"));
            ma.unmap();
            mb1.unmap();
            error(ErrorCode.SEGMENT_IN_USE, () -> b.free(seg.address()));
            assertEquals(1, a.info().mappedSegments());
            mb2.unmap();
            assertEquals(0, a.info().mappedSegments());
            b.free(seg.address());
            error(ErrorCode.INVALID_ADDRESS, () -> a.free(seg));
            error(ErrorCode.INVALID_ADDRESS, () -> seg.map(MapFlags.NONE));
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseToDeleteANamespaceWithMappedSegments(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            Namespace ns = client.createNamespace("del");
            Mapping m = ns.alloc(64, AllocFlags.GROW).map(MapFlags.NONE);
            error(ErrorCode.SEGMENT_IN_USE, () -> client.deleteNamespace("del"));
            m.close();
            client.deleteNamespace("del");
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldDropEveryReferenceOfAClosedClient(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 2)) {
            RStore owner = cluster.client();
            Namespace ns = owner.createNamespace("drop");
            RAddress seg = ns.alloc(1024, AllocFlags.GROW);
            int sessions = cluster.master().sessionCount();
            RStore leaver = cluster.client();
            Namespace theirs = leaver.joinNamespace("drop");
            for (int i = 0; i < 5; i++) {
                theirs.raddress(seg.address()).map(MapFlags.NONE); // never unmapped by hand
            }
            error(ErrorCode.SEGMENT_IN_USE, () -> ns.free(seg));
            leaver.close();
            assertEquals(sessions, cluster.master().sessionCount());
            assertEquals(0, ns.info().mappedSegments());
            ns.free(seg);
            owner.deleteNamespace("drop");
        }
    }

    @ParameterizedTest
    @MethodSource("io.rstore.conformance.TestCluster#transports")
    void shouldRefuseToUnmapWhatThisClientNeverMapped(String transport) {
        try (TestCluster cluster = TestCluster.start(transport, 1)) {
            RStore client = cluster.client();
            Namespace ns = client.createNamespace("u");
            RAddress seg = ns.alloc(64, AllocFlags.GROW);
            error(ErrorCode.INVALID_ADDRESS, () -> cluster.master().unmap(cluster.master().openSession("other"), ns.id(), seg.address()));
        }
    }
}

package io.rstore.conformance;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;

import static io.rstore.conformance.Expect.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class ConnectTest {

    @Test
    void shouldStartSeparateEmbeddedClustersAndLetOthersAttachByUri() {
        try (RStore first = RStore.embedded(); RStore second = RStore.embedded()) {
            assertNotEquals(first.uri(), second.uri());
            assertEquals("inproc", first.transportName());
            first.createNamespace("same-name");
            second.createNamespace("same-name"); // separate clusters, separate namespaces
            try (RStore attached = RStore.connect(first.uri());
                 Mapping w = first.joinNamespace("same-name").alloc(64, AllocFlags.GROW).map(MapFlags.NONE)) {
                w.segment().set(ValueLayout.JAVA_INT, 0, 17);
                w.write();
                try (Mapping r = attached.joinNamespace("same-name").raddress(w.raddress().address()).map(MapFlags.PREFETCH)) {
                    assertEquals(17, r.segment().get(ValueLayout.JAVA_INT, 0));
                }
            }
        }
    }

    @Test
    void shouldExplainBadOrUnservedUris() {
        error(ErrorCode.INVALID_ARGUMENT, () -> RStore.connect("no scheme here"));
        error(ErrorCode.INVALID_ARGUMENT, () -> RStore.connect("::"));
        error(ErrorCode.MASTER_UNAVAILABLE, () -> RStore.connect("inproc://nobody-runs-this"));
        var nobody = error(ErrorCode.MASTER_UNAVAILABLE, () -> RStore.connect("rstore+tcp://127.0.0.1:1"));
        org.junit.jupiter.api.Assertions.assertTrue(nobody.getMessage().contains("cannot reach the master at 127.0.0.1:1"), nobody.getMessage());
        var unknown = error(ErrorCode.UNSUPPORTED, () -> RStore.connect("rstore+pigeon://localhost:7400"));
        org.junit.jupiter.api.Assertions.assertTrue(unknown.getMessage().contains("rstore+pigeon"), unknown.getMessage());
        error(ErrorCode.INVALID_ARGUMENT, () -> RStore.connect("rstore+tcp:///nohost"));
    }

    @Test
    void shouldStopTheOwnedClusterWithItsOwner() {
        RStore owner = RStore.embedded(RStoreSettings.defaults().withClusterName("owned"));
        RStore other = RStore.connect(owner.uri());
        Mapping m = other.createNamespace("n").alloc(64, AllocFlags.GROW).map(MapFlags.NONE);
        owner.close();
        error(ErrorCode.SERVER_UNAVAILABLE, m::read);
        error(ErrorCode.MASTER_UNAVAILABLE, () -> RStore.connect("inproc://owned"));
        other.close();
    }
}

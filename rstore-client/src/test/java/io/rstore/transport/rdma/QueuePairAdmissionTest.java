package io.rstore.transport.rdma;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whom a listener's admission closes, and when: the order the devices' contract cannot see from one source address. */
class QueuePairAdmissionTest {
    private static final RdmaDevice.RequestHandler SILENT = new RdmaDevice.RequestHandler() {
        @Override
        public void handle(java.nio.ByteBuffer request, java.nio.ByteBuffer response) {
        }

        @Override
        public boolean authenticated() {
            return false;
        }
    };
    private static final RdmaDevice.RequestHandler MEMBER = (request, response) -> { };

    private final List<String> closed = new ArrayList<>();

    private QueuePairAdmission.Seat arrive(QueuePairAdmission admission, String source, String name) throws Exception {
        return admission.arrive(InetAddress.getByName(source), () -> closed.add(name));
    }

    @Test
    void shouldCloseTheOldestOfTheSameSourceFirstThenTheOldestOfAll() throws Exception {
        QueuePairAdmission admission = new QueuePairAdmission(new RdmaDevice.ListenerLimits(8, 4, 2, 5_000));
        arrive(admission, "10.0.0.1", "a1");
        arrive(admission, "10.0.0.2", "b1");
        arrive(admission, "10.0.0.1", "a2");
        arrive(admission, "10.0.0.1", "a3"); // a's third: its own oldest goes, not b1
        assertEquals(List.of("a1"), closed);
        arrive(admission, "10.0.0.3", "c1");
        arrive(admission, "10.0.0.3", "c2"); // five pending past four: the oldest of all
        assertEquals(List.of("a1", "b1"), closed);
        assertEquals(4, admission.pending());
    }

    @Test
    void shouldFreeAPendingPlaceWhenItsHandlerAuthenticatesAndRefuseOnePastTheLimit() throws Exception {
        QueuePairAdmission admission = new QueuePairAdmission(new RdmaDevice.ListenerLimits(1, 2, 2, 5_000));
        QueuePairAdmission.Seat first = arrive(admission, "10.0.0.1", "first");
        QueuePairAdmission.Seat silent = arrive(admission, "10.0.0.1", "silent");
        assertTrue(silent.admit(SILENT), "pending, still in its handshake");
        assertTrue(first.admit(MEMBER));
        assertEquals(1, admission.served());
        assertEquals(1, admission.pending());
        QueuePairAdmission.Seat second = arrive(admission, "10.0.0.1", "second");
        assertTrue(closed.isEmpty(), "the authenticated one left the pending places: " + closed);
        assertFalse(second.admit(MEMBER), "one authenticated queue pair at most");
        first.leave();
        first.leave(); // twice: once
        assertEquals(0, admission.served());
        QueuePairAdmission.Seat third = arrive(admission, "10.0.0.1", "third");
        assertEquals(List.of("silent"), closed, "three pending past two: the oldest");
        assertFalse(silent.admit(MEMBER), "closed for a newer one, it is not served even when it authenticates");
        assertTrue(third.admit(MEMBER));
    }
}

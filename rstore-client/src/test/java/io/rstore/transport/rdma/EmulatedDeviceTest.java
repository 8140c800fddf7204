package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The device contract on the emulated device (every build runs it), and the cluster secret its listeners require. */
class EmulatedDeviceTest extends DeviceContract {
    @Override
    RdmaDevice open() {
        return new EmulatedDevice();
    }

    @Override
    String address() {
        return "127.0.0.1";
    }

    private static final RdmaDevice.RequestHandler ECHO = (request, response) -> response.put(request);

    @Test
    void shouldServeOnlyQueuePairsThatProveTheSecret() {
        try (EmulatedDevice server = new EmulatedDevice("s3cret");
             EmulatedDevice right = new EmulatedDevice("s3cret");
             EmulatedDevice wrong = new EmulatedDevice("guess");
             EmulatedDevice none = new EmulatedDevice()) {
            RdmaDevice.Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), () -> ECHO);
            InetSocketAddress at = new InetSocketAddress("127.0.0.1", listener.port());
            RStoreException refused = assertThrows(RStoreException.class, () -> wrong.connect(at, 5_000, (wrId, status) -> { }));
            assertEquals(ErrorCode.UNAUTHORIZED, refused.code(), refused.getMessage());
            RStoreException missing = assertThrows(RStoreException.class, () -> none.connect(at, 5_000, (wrId, status) -> { }));
            assertEquals(ErrorCode.UNAUTHORIZED, missing.code());
            assertTrue(missing.getMessage().contains("requires a cluster secret"), missing.getMessage());
            QueuePair qp = right.connect(at, 5_000, (wrId, status) -> { });
            ByteBuffer answer = qp.call(ByteBuffer.wrap(new byte[] {1, 2, 3}), 5_000);
            assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), answer);
        }
    }

    /** A work request sent without the handshake is never carried out: the region's bytes do not come back. */
    @Test
    void shouldNotCarryOutWorkRequestsBeforeTheHandshake() throws Exception {
        try (EmulatedDevice server = new EmulatedDevice("s3cret"); Arena arena = Arena.ofConfined()) {
            MemorySegment secret = arena.allocate(64);
            secret.fill((byte) 0x5A);
            MemoryRegion region = server.register(secret);
            RdmaDevice.Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), () -> ECHO);
            try (Socket s = new Socket("127.0.0.1", listener.port())) {
                s.setSoTimeout(15_000);
                ByteBuffer read = ByteBuffer.allocate(EmulatedDevice.REQUEST_HEADER).order(ByteOrder.LITTLE_ENDIAN);
                read.putInt(EmulatedDevice.REQUEST_HEADER - 4).put((byte) EmulatedDevice.READ).putLong(1).putLong(secret.address())
                        .putInt(region.rkey()).putInt(64);
                // sent twice over: well past the handshake's proof frame (50 bytes)
                s.getOutputStream().write(read.array());
                s.getOutputStream().write(read.array());
                byte[] got = readAll(s.getInputStream());
                byte[] leaked = new byte[16];
                Arrays.fill(leaked, (byte) 0x5A);
                assertFalse(indexOf(got, leaked) >= 0, "the region's bytes came back without the secret");
            }
        }
    }

    private static byte[] readAll(InputStream in) {
        try {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            return new byte[0]; // reset: nothing more came
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }
}

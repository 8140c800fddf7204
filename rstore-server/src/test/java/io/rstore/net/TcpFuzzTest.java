package io.rstore.net;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.Test;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Garbage sent to the tcp port gets an error and a closed connection; everyone else is served on. */
@Timeout(120)
class TcpFuzzTest {

    @Test
    void shouldSurviveThousandsOfMalformedFramesWhileServingOthers() throws Exception {
        RStoreSettings settings = RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withServerCapacityBytes(64 << 20)
                .withOperationTimeoutMs(5_000);
        try (NetworkCluster cluster = NetworkCluster.start(settings, new InetSocketAddress("127.0.0.1", 0));
             RStore good = RStore.connect("rstore+tcp://127.0.0.1:" + cluster.port(), settings);
             Mapping m = good.createNamespace("fuzz").alloc(4096, AllocFlags.GROW).map(MapFlags.NONE)) {
            Random random = new Random(7);
            int[] ports = {cluster.port(), cluster.serverPort(0)}; // the master's, and a memory server's
            long used = cluster.server(0).usedBytes();
            int answered = 0; // connections that got an error frame after the challenge
            int closed = 0;   // connections closed (or reset) after the challenge without one
            for (int i = 0; i < 3_000; i++) {
                try (Socket s = new Socket("127.0.0.1", ports[i % 2])) {
                    s.setSoTimeout(2_000);
                    s.getOutputStream().write(garbage(random, i));
                    s.shutdownOutput(); // a truncated frame must not keep the server waiting forever
                    byte[] reply = s.getInputStream().readAllBytes();
                    ByteBuffer in = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
                    // every connection opens with the server's challenge
                    assertTrue(reply.length >= Handshake.CHALLENGE_FRAME && in.get(7) == Handshake.CHALLENGE, "no challenge on connection " + i);
                    in.position(Handshake.CHALLENGE_FRAME);
                    boolean refused = false;
                    while (in.remaining() >= Frames.HEADER) { // what follows is whole frames; garbage ends in an error frame
                        int length = in.getInt(in.position());
                        assertTrue(length >= Frames.HEADER - 4 && length <= in.remaining() - 4, "a torn answer frame on connection " + i);
                        refused |= in.get(in.position() + 7) == 3;
                        in.position(in.position() + 4 + length);
                    }
                    assertEquals(0, in.remaining(), "bytes after the last whole frame on connection " + i);
                    if (refused) {
                        answered++;
                    } else {
                        closed++;
                    }
                } catch (IOException e) {
                    closed++; // reset by the server: also an acceptable end
                }
                if (i % 100 == 0) { // the well-behaved client is served throughout
                    m.segment().set(ValueLayout.JAVA_LONG, 0, i);
                    m.write(0, 8);
                    m.segment().set(ValueLayout.JAVA_LONG, 0, -1);
                    m.read(0, 8);
                    assertEquals(i, m.segment().get(ValueLayout.JAVA_LONG, 0), "after " + i + " bad connections");
                }
            }
            assertEquals(3_000, answered + closed);
            assertTrue(answered > 1_000, "malformed frames are answered with an error frame: " + answered);
            assertEquals(1, good.namespaces().size(), "the master's state is untouched");
            assertEquals(used, cluster.server(0).usedBytes(), "no chunk was allocated or released by a stranger");
        }
    }

    /**
     * Random bytes in place of the handshake's answer, or a valid answer (no secret is set)
     * followed by frames with lying lengths, valid-looking headers with bad kinds, types and
     * bodies, or a request of every call in turn (master calls 1-21, chunk calls 32-36, the
     * data request) with a random body, cut short or run long.
     */
    private static byte[] garbage(Random random, int i) {
        if (i % 5 == 0) {
            byte[] b = new byte[1 + random.nextInt(200)];
            random.nextBytes(b);
            return b;
        }
        ByteBuffer proof = Handshake.proofFrame("", null);
        ByteBuffer b = ByteBuffer.allocate(proof.remaining() + 18 + 96).order(ByteOrder.LITTLE_ENDIAN).put(proof);
        switch (i % 5) {
            case 1 -> // a length that claims more than is sent, or more than the limit
                    b.putInt(random.nextBoolean() ? Integer.MAX_VALUE : 100 + random.nextInt(1000)).putInt(random.nextInt());
            case 2 -> { // a plausible header: magic and version right, the rest random
                int bodyBytes = random.nextInt(64);
                b.putInt(14 + bodyBytes).putShort((short) 0x5253).put((byte) 1).put((byte) random.nextInt(8))
                        .putShort((short) random.nextInt(40)).putLong(random.nextLong());
                b.put(randomBytes(random, bodyBytes));
            }
            default -> { // each call in turn: a request frame of that type, its body random and of a random length
                // master calls, chunk calls, and (negative here) the data request's read and write
                int[] types = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 32, 33, 34, 35, 36, -Frames.READ, -Frames.WRITE};
                int pick = types[(i / 5) % types.length];
                boolean data = pick < 0;
                int type = Math.abs(pick);
                int bodyBytes = random.nextInt(96);
                int claimed = random.nextInt(4) == 0 ? bodyBytes + 1 + random.nextInt(8) : bodyBytes; // sometimes cut short
                b.putInt(14 + claimed).putShort((short) 0x5253).put((byte) 1).put((byte) (data ? Frames.DATA_REQUEST : 1))
                        .putShort((short) type).putLong(random.nextLong());
                b.put(randomBytes(random, bodyBytes));
            }
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static byte[] randomBytes(Random random, int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }
}

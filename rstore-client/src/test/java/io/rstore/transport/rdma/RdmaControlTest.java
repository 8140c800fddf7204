package io.rstore.transport.rdma;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.wire.FrameHandler;
import io.rstore.protocol.wire.Handshake;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The master's side of an RDMA queue pair: small message buffers until the handshake
 * admits the client, full-size ones out of the listener's budget after, an OVERLOADED
 * refusal (which the client's handshake throws) when the budget is spent, and the budget
 * given back when a connection ends. Frames reach the master only once admitted.
 */
class RdmaControlTest {
    private final AtomicInteger framesServed = new AtomicInteger();
    private final FrameHandler echo = request -> {
        framesServed.incrementAndGet();
        return ByteBuffer.allocate(request.remaining()).put(request).flip();
    };

    private static ByteBuffer answer(RdmaDevice.RequestHandler handler, ByteBuffer request) {
        ByteBuffer response = ByteBuffer.allocate(RdmaDevice.MAX_MESSAGE).order(ByteOrder.LITTLE_ENDIAN);
        handler.handle(request, response);
        return response.flip();
    }

    private static ByteBuffer hello() {
        return ByteBuffer.allocate(0);
    }

    @Test
    void shouldGrantFullBuffersOnlyWithinTheBudgetWithoutASecret() {
        MessageBudget budget = new MessageBudget(2 * MessageBudget.PER_CONNECTION);
        RdmaDevice.RequestHandler first = RdmaControl.serving(echo, "", budget);
        RdmaDevice.RequestHandler second = RdmaControl.serving(echo, "", budget);
        RdmaDevice.RequestHandler third = RdmaControl.serving(echo, "", budget);
        for (RdmaDevice.RequestHandler h : new RdmaDevice.RequestHandler[] {first, second, third}) {
            assertEquals(RdmaDevice.SMALL_MESSAGE, h.messageBytes(), "before its hello, a connection has small buffers");
        }
        assertNull(Handshake.readChallenge(answer(first, hello()), "master"), "no secret asked for");
        assertNull(Handshake.readChallenge(answer(second, hello()), "master"));
        assertEquals(RdmaDevice.MAX_MESSAGE, first.messageBytes());
        assertEquals(RdmaDevice.MAX_MESSAGE, second.messageBytes());

        RStoreException refused = assertThrows(RStoreException.class, () -> Handshake.readChallenge(answer(third, hello()), "master"));
        assertEquals(ErrorCode.OVERLOADED, refused.code());
        assertTrue(refused.getMessage().contains(MessageBudget.SETTING) && refused.getMessage().contains("2 connections"), refused.getMessage());
        assertEquals(RdmaDevice.SMALL_MESSAGE, third.messageBytes(), "a refused connection keeps its small buffers");
        assertTrue(first.authenticated() && !third.authenticated(), "a refused connection is closed at the handshake's bound");
        ByteBuffer frame = ByteBuffer.wrap(new byte[] {1, 2, 3});
        assertThrows(RStoreException.class, () -> Handshake.checkVerdict(answer(third, frame.duplicate()), "master"),
                "a refused connection is refused again, its frames never served");
        assertEquals(0, framesServed.get());

        ByteBuffer echoed = answer(first, frame.duplicate());
        assertArrayEquals(new byte[] {1, 2, 3}, java.util.Arrays.copyOf(echoed.array(), echoed.limit()), "an admitted connection's frames are served");
        first.close(); // its buffers go back
        RdmaDevice.RequestHandler fourth = RdmaControl.serving(echo, "", budget);
        assertNull(Handshake.readChallenge(answer(fourth, hello()), "master"));
        assertEquals(RdmaDevice.MAX_MESSAGE, fourth.messageBytes());
        third.close(); // a refused connection gives back nothing it did not take
        RdmaDevice.RequestHandler fifth = RdmaControl.serving(echo, "", budget);
        assertThrows(RStoreException.class, () -> Handshake.readChallenge(answer(fifth, hello()), "master"));
    }

    @Test
    void shouldKeepSmallBuffersUntilTheSecretIsProved() {
        MessageBudget budget = new MessageBudget(MessageBudget.PER_CONNECTION);
        RdmaDevice.RequestHandler stranger = RdmaControl.serving(echo, "s3cret", budget);
        byte[] nonce = Handshake.readChallenge(answer(stranger, hello()), "master");
        assertNotNull(nonce, "a secret is asked for");
        assertEquals(RdmaDevice.SMALL_MESSAGE, stranger.messageBytes());
        assertFalse(stranger.authenticated());
        RStoreException wrong = assertThrows(RStoreException.class,
                () -> Handshake.checkVerdict(answer(stranger, Handshake.proofFrame("guess", nonce)), "master"));
        assertEquals(ErrorCode.UNAUTHORIZED, wrong.code());
        assertEquals(RdmaDevice.SMALL_MESSAGE, stranger.messageBytes(), "a wrong proof gets no buffers");

        RdmaDevice.RequestHandler member = RdmaControl.serving(echo, "s3cret", budget);
        byte[] memberNonce = Handshake.readChallenge(answer(member, hello()), "master");
        Handshake.checkVerdict(answer(member, Handshake.proofFrame("s3cret", memberNonce)), "master");
        assertEquals(RdmaDevice.MAX_MESSAGE, member.messageBytes(), "the budget was left whole by the stranger");
        assertTrue(member.authenticated());
        assertFalse(stranger.authenticated(), "a wrong proof leaves it unauthenticated, to be closed at the bound");

        RdmaDevice.RequestHandler late = RdmaControl.serving(echo, "s3cret", budget);
        byte[] lateNonce = Handshake.readChallenge(answer(late, hello()), "master");
        RStoreException overloaded = assertThrows(RStoreException.class,
                () -> Handshake.checkVerdict(answer(late, Handshake.proofFrame("s3cret", lateNonce)), "master"));
        assertEquals(ErrorCode.OVERLOADED, overloaded.code(), "proved, but the budget is spent: refused in place of the verdict");
        assertEquals(0, framesServed.get());
    }
}

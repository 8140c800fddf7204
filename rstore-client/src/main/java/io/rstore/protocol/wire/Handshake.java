package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The first exchange on every tcp connection (docs/protocol.md): the server sends a
 * challenge (whether a cluster secret is required, and a fresh 16-byte nonce), or an
 * OVERLOADED error when it is at its connection limit. The client always answers with a
 * proof frame, HMAC-SHA256(secret, nonce) when a secret is required (zeros otherwise),
 * within the server's handshake bound, and the server replies OK, or UNAUTHORIZED and
 * hangs up. The secret itself never crosses the wire.
 */
public final class Handshake {
    public static final int CHALLENGE = 6;
    public static final int PROOF = 7;
    public static final int NONCE_BYTES = 16;
    public static final int PROOF_BYTES = 32;
    public static final int CHALLENGE_FRAME = Frames.HEADER + 1 + NONCE_BYTES;
    public static final int PROOF_FRAME = Frames.HEADER + PROOF_BYTES;
    private static final SecureRandom RANDOM = new SecureRandom();

    private Handshake() {
    }

    public static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    public static ByteBuffer challenge(boolean secretRequired, byte[] nonce) {
        ByteBuffer b = ByteBuffer.allocate(CHALLENGE_FRAME).order(ByteOrder.LITTLE_ENDIAN);
        Frames.writeHeader(b, CHALLENGE_FRAME - 4, CHALLENGE, 0, 0);
        b.put((byte) (secretRequired ? 1 : 0)).put(nonce).flip();
        return b;
    }

    /** What a server at its connection limit sends instead of the challenge before it hangs up. */
    public static ByteBuffer refusal(int connections) {
        return refusal("it has " + connections + " connections open, its limit");
    }

    /** An OVERLOADED refusal for {@code reason}, in place of the challenge or the verdict: the client throws it. */
    public static ByteBuffer refusal(String reason) {
        WireBuffer out = Frames.start(Frames.ERROR, 0, 0);
        out.putInt(ErrorCode.OVERLOADED.code()).putString(reason);
        return Frames.finish(out);
    }

    /** Reads a challenge frame; returns the nonce, or null when no secret is required. */
    public static byte[] readChallenge(ByteBuffer frame, String peer) {
        frame.order(ByteOrder.LITTLE_ENDIAN);
        if (frame.remaining() >= Frames.HEADER && frame.get(Frames.KIND_AT) == Frames.ERROR) {
            checkVerdict(frame.duplicate(), peer); // a refusal: throws with its code and reason
        }
        if (frame.remaining() != CHALLENGE_FRAME || frame.getInt(Frames.LENGTH_AT) != CHALLENGE_FRAME - 4 || frame.get(Frames.KIND_AT) != CHALLENGE
                || (frame.getShort(Frames.MAGIC_AT) & 0xFFFF) != Frames.MAGIC) {
            throw ErrorCode.INVALID_FRAME.exception(peer + " did not open with an RStore challenge; is it an RStore server of this version?");
        }
        if (frame.get(Frames.HEADER) == 0) {
            return null;
        }
        byte[] nonce = new byte[NONCE_BYTES];
        frame.get(Frames.HEADER + 1, nonce);
        return nonce;
    }

    /** The answer to a challenge: the proof of {@code secret} for {@code nonce}, or zeros when no secret is required (null nonce). */
    public static ByteBuffer proofFrame(String secret, byte[] nonce) {
        ByteBuffer b = ByteBuffer.allocate(PROOF_FRAME).order(ByteOrder.LITTLE_ENDIAN);
        Frames.writeHeader(b, PROOF_FRAME - 4, PROOF, 0, 0);
        b.put(nonce == null ? new byte[PROOF_BYTES] : proof(secret, nonce)).flip();
        return b;
    }

    /** Whether a frame has the shape of a proof frame (its content unchecked: no secret is required). */
    public static boolean isProof(ByteBuffer frame) {
        frame.order(ByteOrder.LITTLE_ENDIAN);
        return frame.remaining() == PROOF_FRAME && frame.getInt(Frames.LENGTH_AT) == PROOF_FRAME - 4 && frame.get(Frames.KIND_AT) == PROOF
                && (frame.getShort(Frames.MAGIC_AT) & 0xFFFF) == Frames.MAGIC;
    }

    /**
     * Whether a client's answer lets it on: with a secret, a proof of it for the nonce; without
     * one, any frame of a proof's shape.
     */
    public static boolean accepts(ByteBuffer answer, String secret, byte[] nonce) {
        return secret.isEmpty() ? isProof(answer) : verify(answer, secret, nonce);
    }

    /** Whether a proof frame answers the nonce with this secret (compared in constant time). */
    public static boolean verify(ByteBuffer frame, String secret, byte[] nonce) {
        if (!isProof(frame)) {
            return false;
        }
        byte[] got = new byte[PROOF_BYTES];
        frame.get(Frames.HEADER, got);
        return MessageDigest.isEqual(got, proof(secret, nonce));
    }

    /** The server's verdict: an empty response, or an UNAUTHORIZED error. */
    public static ByteBuffer verdict(boolean accepted) {
        WireBuffer out = Frames.start(accepted ? Frames.RESPONSE : Frames.ERROR, 0, 0);
        if (!accepted) {
            out.putInt(ErrorCode.UNAUTHORIZED.code()).putString("wrong or missing cluster secret");
        }
        return Frames.finish(out);
    }

    /** Throws unless the verdict frame accepts. */
    public static void checkVerdict(ByteBuffer frame, String peer) {
        Frames.Header header = Frames.read(frame);
        if (header.kind() == Frames.ERROR) {
            ErrorCode code = ErrorCode.of(header.body().getInt());
            throw code.exception(peer + " refused the connection: " + header.body().getString()
                    + (code == ErrorCode.UNAUTHORIZED ? "; give the cluster's secret (RSTORE_SECRET, or RStoreSettings.withClusterSecret)" : ""));
        }
    }

    /**
     * The client's half over a connection's streams (bounded by the socket's read timeout):
     * reads the challenge, answers it (proving the secret if one is required), checks the verdict.
     */
    public static void clientSide(InputStream in, OutputStream out, String secret, String peer) throws IOException {
        DataInputStream data = new DataInputStream(in);
        byte[] nonce = readChallenge(readSmallFrame(data, peer), peer);
        if (nonce != null && (secret == null || secret.isEmpty())) {
            throw ErrorCode.UNAUTHORIZED.exception(peer + " requires a cluster secret and none was given; set RSTORE_SECRET"
                    + " (or RStoreSettings.withClusterSecret)");
        }
        ByteBuffer proof = proofFrame(secret, nonce);
        out.write(proof.array(), 0, proof.limit());
        out.flush();
        checkVerdict(readSmallFrame(data, peer), peer);
    }

    /**
     * The server's half over a connection's streams (bounded by the socket's read timeout,
     * which the caller sets to the handshake bound): challenges, reads the proof, answers
     * with the verdict. Returns whether the client may go on; no more than the few bytes of
     * these frames is spent on it before.
     */
    public static boolean serverSide(InputStream in, OutputStream out, String secret) throws IOException {
        byte[] nonce = nonce();
        ByteBuffer challenge = challenge(!secret.isEmpty(), nonce);
        out.write(challenge.array(), 0, challenge.limit());
        out.flush();
        byte[] proof = new byte[PROOF_FRAME];
        new DataInputStream(in).readFully(proof);
        ByteBuffer frame = ByteBuffer.wrap(proof);
        boolean accepted = accepts(frame, secret, nonce);
        ByteBuffer verdict = verdict(accepted);
        out.write(verdict.array(), verdict.arrayOffset() + verdict.position(), verdict.remaining());
        out.flush();
        return accepted;
    }

    /** One frame of the handshake (at most 4 KiB). */
    private static ByteBuffer readSmallFrame(DataInputStream data, String peer) throws IOException {
        byte[] lengthBytes = new byte[4];
        data.readFully(lengthBytes);
        int length = ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length < Frames.HEADER - 4 || length > 4096) {
            throw ErrorCode.INVALID_FRAME.exception(peer + " opened with a frame of " + length + " bytes; is it an RStore server of this version?");
        }
        byte[] frame = new byte[4 + length];
        System.arraycopy(lengthBytes, 0, frame, 0, 4);
        data.readFully(frame, 4, length);
        return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] proof(String secret, byte[] nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(nonce);
        } catch (GeneralSecurityException e) {
            throw new RStoreException(ErrorCode.UNKNOWN, "HMAC-SHA256 is unavailable: " + e.getMessage(), e);
        }
    }
}

package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

/**
 * The first exchange on every tcp connection (docs/protocol.md): the server sends a
 * challenge (whether a cluster secret is required, and a fresh 16-byte nonce); if one is
 * required the client answers with HMAC-SHA256(secret, nonce) and the server replies OK
 * or UNAUTHORIZED and hangs up. The secret itself never crosses the wire.
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

    /** Reads a challenge frame; returns the nonce, or null when no secret is required. */
    public static byte[] readChallenge(ByteBuffer frame, String peer) {
        frame.order(ByteOrder.LITTLE_ENDIAN);
        if (frame.remaining() != CHALLENGE_FRAME || frame.getInt(0) != CHALLENGE_FRAME - 4 || frame.get(7) != CHALLENGE
                || (frame.getShort(4) & 0xFFFF) != Frames.MAGIC) {
            throw ErrorCode.INVALID_FRAME.exception(peer + " did not open with an RStore challenge; is it an RStore server of this version?");
        }
        if (frame.get(Frames.HEADER) == 0) {
            return null;
        }
        byte[] nonce = new byte[NONCE_BYTES];
        frame.get(Frames.HEADER + 1, nonce);
        return nonce;
    }

    public static ByteBuffer proofFrame(String secret, byte[] nonce) {
        ByteBuffer b = ByteBuffer.allocate(PROOF_FRAME).order(ByteOrder.LITTLE_ENDIAN);
        Frames.writeHeader(b, PROOF_FRAME - 4, PROOF, 0, 0);
        b.put(proof(secret, nonce)).flip();
        return b;
    }

    /** Whether a proof frame answers the nonce with this secret (compared in constant time). */
    public static boolean verify(ByteBuffer frame, String secret, byte[] nonce) {
        frame.order(ByteOrder.LITTLE_ENDIAN);
        if (frame.remaining() != PROOF_FRAME || frame.getInt(0) != PROOF_FRAME - 4 || frame.get(7) != PROOF
                || (frame.getShort(4) & 0xFFFF) != Frames.MAGIC) {
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
                    + "; give the cluster's secret (RSTORE_SECRET, or RStoreSettings.withClusterSecret)");
        }
    }

    /**
     * The client's half over a connection's streams (bounded by the socket's read timeout):
     * reads the challenge, proves the secret if one is required, checks the verdict.
     */
    public static void clientSide(java.io.InputStream in, java.io.OutputStream out, String secret, String peer) throws java.io.IOException {
        java.io.DataInputStream data = new java.io.DataInputStream(in);
        byte[] challenge = new byte[CHALLENGE_FRAME];
        data.readFully(challenge);
        byte[] nonce = readChallenge(ByteBuffer.wrap(challenge), peer);
        if (nonce == null) {
            return;
        }
        if (secret == null || secret.isEmpty()) {
            throw ErrorCode.UNAUTHORIZED.exception(peer + " requires a cluster secret and none was given; set RSTORE_SECRET"
                    + " (or RStoreSettings.withClusterSecret)");
        }
        ByteBuffer proof = proofFrame(secret, nonce);
        out.write(proof.array(), 0, proof.limit());
        out.flush();
        byte[] lengthBytes = new byte[4];
        data.readFully(lengthBytes);
        int length = ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length < Frames.HEADER - 4 || length > 4096) {
            throw ErrorCode.INVALID_FRAME.exception(peer + " answered the proof with a frame of " + length + " bytes");
        }
        byte[] verdict = new byte[4 + length];
        System.arraycopy(lengthBytes, 0, verdict, 0, 4);
        data.readFully(verdict, 4, length);
        checkVerdict(ByteBuffer.wrap(verdict), peer);
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

package io.rstore.net;

import io.rstore.config.Logs;
import io.rstore.protocol.wire.Frames;
import io.rstore.protocol.wire.Handshake;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Where a new connection waits until it has answered the challenge: one thread and one
 * selector for all of them, a socket and a 48-byte buffer each, and a budget of its own
 * ({@link NetLimits#maxPendingHandshakes()} in all, {@link NetLimits#maxPendingPerSource()}
 * per source address) apart from the authenticated connections'. When the budget is full
 * the oldest waiting connection is closed for the new one (of the same source first), so
 * a flood of silent or reconnecting sockets costs the flooder its own places and never
 * the slots, threads or memory of clients that authenticate, which answer within
 * milliseconds. As the most trusted servers do it: OpenSSH's MaxStartups, nginx's
 * limit_conn, a SYN queue that drops its oldest.
 */
final class HandshakeGate implements AutoCloseable {
    /** What the gate hands on: a connection that proved the secret, or the refusal it logs. */
    interface Outcome {
        /** The connection proved itself and its verdict is still to be sent; returns false if the server refused it (it sent the refusal). */
        boolean authenticated(SocketChannel channel) throws IOException;

        /** Logs (rate-limited) why a waiting connection was closed. */
        void refused(String what, SocketChannel channel);
    }

    private final String secret;
    private final NetLimits limits;
    private final Outcome outcome;
    private final Selector selector;
    /** Accepted and not yet challenged: few, so the budget bounds the descriptors at every moment, not once the gate catches up. */
    private final BlockingQueue<SocketChannel> arriving = new ArrayBlockingQueue<>(ARRIVING);
    static final int ARRIVING = 64;
    private final LinkedHashMap<SocketChannel, Waiting> waiting = new LinkedHashMap<>(); // oldest first: also deadline order
    private final Map<InetAddress, Integer> perSource = new HashMap<>();
    private final List<Map.Entry<SocketChannel, Waiting>> answered = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    private static final class Waiting {
        final InetAddress source;
        final byte[] nonce;
        final long deadline;
        final ByteBuffer proof = ByteBuffer.allocate(Handshake.PROOF_FRAME);

        Waiting(InetAddress source, byte[] nonce, long deadline) {
            this.source = source;
            this.nonce = nonce;
            this.deadline = deadline;
        }
    }

    HandshakeGate(String secret, NetLimits limits, Outcome outcome) throws IOException {
        this.secret = secret;
        this.limits = limits;
        this.outcome = outcome;
        this.selector = Selector.open();
        this.thread = Thread.ofPlatform().name("rstore-handshake").daemon().start(this::run);
    }

    /**
     * Takes a freshly accepted connection; the gate challenges it. Waits while the gate has
     * {@link #ARRIVING} still to challenge (the rest queue in the kernel's backlog); false if
     * the gate closed meanwhile.
     */
    boolean admit(SocketChannel channel) throws InterruptedException {
        while (!arriving.offer(channel, 100, TimeUnit.MILLISECONDS)) {
            selector.wakeup();
            if (closed) {
                return false;
            }
        }
        selector.wakeup();
        return true;
    }

    private void run() {
        try {
            while (!closed) {
                long now = System.nanoTime();
                expire(now);
                long sleepMs = waiting.isEmpty() ? 0 : Math.max(1, (waiting.values().iterator().next().deadline - now) / 1_000_000L + 1);
                if (arriving.isEmpty()) { // one admitted after this check wakes the select; with some already waiting, do not sleep
                    selector.select(sleepMs);
                } else {
                    selector.selectNow();
                }
                // at most one queue's worth a round: the acceptor refills the queue while it drains, and a connection
                // evicted here stays open until the next select lets its key go, so an unbounded drain under a flood
                // would hold every evicted descriptor at once
                for (int n = 0; n < ARRIVING; n++) {
                    SocketChannel c = arriving.poll();
                    if (c == null) {
                        break;
                    }
                    challenge(c);
                }
                Iterator<SelectionKey> ready = selector.selectedKeys().iterator();
                while (ready.hasNext()) {
                    SelectionKey key = ready.next();
                    ready.remove();
                    read((SocketChannel) key.channel());
                }
                if (!answered.isEmpty()) {
                    // deregister the answered here before their connection threads register them
                    // (a channel closed while registered stays open until its selector next selects);
                    // readiness left unread is level-triggered and reported again
                    selector.selectNow();
                    selector.selectedKeys().clear();
                    for (Map.Entry<SocketChannel, Waiting> a : answered) {
                        judge(a.getKey(), a.getValue());
                    }
                    answered.clear();
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                Logs.get("rstore").error("the handshake thread stopped: " + e, e);
            }
        } finally {
            for (SocketChannel c : waiting.keySet()) {
                closeQuietly(c);
            }
            for (SocketChannel c; (c = arriving.poll()) != null; ) {
                closeQuietly(c);
            }
        }
    }

    private void challenge(SocketChannel channel) {
        try {
            InetAddress source = ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
            if (perSource.getOrDefault(source, 0) >= limits.maxPendingPerSource()) {
                evictOldest(source);
            } else if (waiting.size() >= limits.maxPendingHandshakes()) {
                evictOldest(null);
            }
            channel.configureBlocking(false);
            byte[] nonce = Handshake.nonce();
            if (!writeAll(channel, Handshake.challenge(!secret.isEmpty(), nonce))) {
                closeQuietly(channel);
                return;
            }
            channel.register(selector, SelectionKey.OP_READ);
            waiting.put(channel, new Waiting(source, nonce, System.nanoTime() + limits.handshakeTimeoutMs() * 1_000_000L));
            perSource.merge(source, 1, Integer::sum);
        } catch (IOException e) { // it went away first
            closeQuietly(channel);
        }
    }

    private void read(SocketChannel channel) {
        Waiting w = waiting.get(channel);
        if (w == null) {
            return;
        }
        try {
            if (channel.read(w.proof) < 0) {
                drop(channel, w);
            } else if (!w.proof.hasRemaining()) { // else more to come, within the deadline
                forget(channel, w);
                channel.keyFor(selector).cancel();
                answered.add(Map.entry(channel, w));
            }
        } catch (IOException e) {
            drop(channel, w);
        }
    }

    /** Checks a whole answer to the challenge: the proven go on to the server, the rest are told why and closed. */
    private void judge(SocketChannel channel, Waiting w) {
        try {
            ByteBuffer proof = w.proof.flip();
            if (secret.isEmpty() && !Handshake.isProof(proof)) {
                writeAll(channel, Frames.invalidFrameError("an answer to the challenge that is not a proof frame"));
                outcome.refused("an answer to the challenge that is not a proof frame from " + channel.getRemoteAddress(), channel);
                closeQuietly(channel);
            } else if (!Handshake.accepts(proof, secret, w.nonce)) {
                writeAll(channel, Handshake.verdict(false));
                outcome.refused("a connection without the cluster secret from " + channel.getRemoteAddress(), channel);
                closeQuietly(channel);
            } else if (!outcome.authenticated(channel)) {
                closeQuietly(channel);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
        }
    }

    /** Closes waiting connections whose bound has passed: the oldest are first. */
    private void expire(long now) {
        Iterator<Map.Entry<SocketChannel, Waiting>> oldest = waiting.entrySet().iterator();
        while (oldest.hasNext()) {
            Map.Entry<SocketChannel, Waiting> e = oldest.next();
            if (now - e.getValue().deadline < 0) {
                return;
            }
            oldest.remove();
            release(e.getValue());
            outcome.refused(describe(e.getKey()) + " that did not answer the challenge within " + limits.handshakeTimeoutMs() + " ms", e.getKey());
            closeQuietly(e.getKey());
        }
    }

    /** Makes room: closes the longest-waiting connection, of {@code source} if given. */
    private void evictOldest(InetAddress source) {
        for (Map.Entry<SocketChannel, Waiting> e : waiting.entrySet()) {
            if (source == null || e.getValue().source.equals(source)) {
                SocketChannel victim = e.getKey();
                outcome.refused(describe(victim) + " still waiting for its handshake, to make room ("
                        + (source == null ? limits.maxPendingHandshakes() + " waiting, rstore.net.max-pending-handshakes"
                        : limits.maxPendingPerSource() + " waiting from " + source.getHostAddress() + ", rstore.net.max-pending-per-source")
                        + ")", victim);
                drop(victim, e.getValue());
                return;
            }
        }
    }

    private void drop(SocketChannel channel, Waiting w) {
        forget(channel, w);
        closeQuietly(channel);
    }

    private void forget(SocketChannel channel, Waiting w) {
        if (waiting.remove(channel) != null) {
            release(w);
        }
    }

    private void release(Waiting w) {
        perSource.computeIfPresent(w.source, (s, n) -> n == 1 ? null : n - 1);
    }

    /** A small frame into a socket's buffer, which a handshake's frames always fit: false if it did not take it whole. */
    static boolean writeAll(SocketChannel channel, ByteBuffer frame) throws IOException {
        channel.write(frame);
        return !frame.hasRemaining();
    }

    private static String describe(SocketChannel channel) {
        try {
            return "a connection from " + channel.getRemoteAddress();
        } catch (IOException e) {
            return "a connection";
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(5_000);
            selector.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}

package io.rstore.net;

import com.sun.management.UnixOperatingSystemMXBean;
import io.rstore.transport.rdma.MessageBudget;

import java.lang.management.ManagementFactory;

/**
 * What one connection may cost a daemon, so that a flood of them cannot lock out
 * legitimate clients (docs/rstore.md, "Limits and defaults").
 *
 * @param maxConnections   authenticated connections open at once; one more is refused with OVERLOADED
 * @param maxPendingHandshakes connections still to answer the challenge, apart from those; when
 *                         full, the one that has waited longest is closed for the next
 * @param maxPendingPerSource of those, from one source address (its oldest is closed first)
 * @param handshakeTimeoutMs a new connection's bound for answering the challenge
 * @param frameTimeoutMs   a frame that has begun must be whole within this bound, and a client
 *                         must take an answer's bytes within it; else the connection is closed
 * @param rdmaMessageBytes the master's RDMA listener: message buffers of all its authenticated
 *                         queue pairs together ({@link io.rstore.transport.rdma.MessageBudget})
 */
public record NetLimits(int maxConnections, int maxPendingHandshakes, int maxPendingPerSource, long handshakeTimeoutMs,
                        long frameTimeoutMs, long rdmaMessageBytes) {
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    public static final int DEFAULT_MAX_PENDING_HANDSHAKES = 1024;
    public static final int DEFAULT_MAX_PENDING_PER_SOURCE = 256;

    /** Each connection holds three descriptors (socket, epoll, wakeup), one waiting for its handshake one; some are kept for files and listeners. */
    static final int DESCRIPTORS_PER_CONNECTION = 3;
    static final int DESCRIPTORS_KEPT = 256;

    public NetLimits {
        if (maxConnections < 1 || maxPendingHandshakes < 1 || maxPendingPerSource < 1 || handshakeTimeoutMs < 1 || frameTimeoutMs < 1
                || rdmaMessageBytes < 0) {
            throw new IllegalArgumentException("limits must be positive: " + maxConnections + " connections, " + maxPendingHandshakes
                    + " pending handshakes, " + maxPendingPerSource + " per source, " + handshakeTimeoutMs + " ms handshake, "
                    + frameTimeoutMs + " ms frame, " + rdmaMessageBytes + " bytes of RDMA message buffers");
        }
    }

    public static NetLimits defaults() {
        return new NetLimits(DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_PENDING_HANDSHAKES, DEFAULT_MAX_PENDING_PER_SOURCE, 5_000, 30_000,
                MessageBudget.DEFAULT_BYTES);
    }

    /**
     * The authenticated connections this process can hold with its descriptor limit beside
     * the pending handshakes, or {@code Integer.MAX_VALUE} where the limit is unknown: a
     * configured limit above it is lowered to it, so the process never runs out of
     * descriptors for its listeners.
     */
    public int connectionsTheDescriptorLimitAllows() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
            long max = unix.getMaxFileDescriptorCount() - DESCRIPTORS_KEPT - maxPendingHandshakes;
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, max / DESCRIPTORS_PER_CONNECTION));
        }
        return Integer.MAX_VALUE;
    }
}

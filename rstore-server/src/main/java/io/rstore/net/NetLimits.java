package io.rstore.net;

import com.sun.management.UnixOperatingSystemMXBean;

import java.lang.management.ManagementFactory;

/**
 * What one connection may cost a daemon, so that a flood of them cannot lock out
 * legitimate clients (docs/rstore.md, "Limits and defaults").
 *
 * @param maxConnections   connections open at once; one more is refused with OVERLOADED
 * @param handshakeTimeoutMs a new connection's bound for answering the challenge
 * @param frameTimeoutMs   a frame that has begun must be whole within this bound, and a client
 *                         must take an answer's bytes within it; else the connection is closed
 */
public record NetLimits(int maxConnections, long handshakeTimeoutMs, long frameTimeoutMs) {
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;

    /** Each connection holds three descriptors (socket, epoll, wakeup); some are kept for files and listeners. */
    static final int DESCRIPTORS_PER_CONNECTION = 3;
    static final int DESCRIPTORS_KEPT = 256;

    public NetLimits {
        if (maxConnections < 1 || handshakeTimeoutMs < 1 || frameTimeoutMs < 1) {
            throw new IllegalArgumentException("limits must be positive: " + maxConnections + " connections, "
                    + handshakeTimeoutMs + " ms handshake, " + frameTimeoutMs + " ms frame");
        }
    }

    public static NetLimits defaults() {
        return new NetLimits(DEFAULT_MAX_CONNECTIONS, 10_000, 30_000);
    }

    /**
     * The connections this process can hold with its descriptor limit, or
     * {@code Integer.MAX_VALUE} where the limit is unknown: a configured limit above it is
     * lowered to it, so the process never runs out of descriptors for its listeners.
     */
    public static int connectionsTheDescriptorLimitAllows() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
            long max = unix.getMaxFileDescriptorCount();
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (max - DESCRIPTORS_KEPT) / DESCRIPTORS_PER_CONNECTION));
        }
        return Integer.MAX_VALUE;
    }
}

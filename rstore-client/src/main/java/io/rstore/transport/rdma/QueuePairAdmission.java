package io.rstore.transport.rdma;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;

/**
 * Which queue pairs one listener serves, as the tcp listener's handshake gate does for
 * sockets: at most {@link RdmaDevice.ListenerLimits#maxConnections} whose handler has
 * authenticated them, and apart from those at most {@link RdmaDevice.ListenerLimits#maxPending}
 * still in their handshake, {@link RdmaDevice.ListenerLimits#maxPendingPerSource} of them
 * from one source address. A newcomer past the pending budget closes the queue pair that has
 * waited longest (of its own source first), so a flood of silent queue pairs costs the
 * flooder its own places and never an authenticated client's; a client that authenticates
 * answers within milliseconds. One authenticated past the limit is closed, as a NIC out of
 * queue pairs refuses it.
 */
final class QueuePairAdmission {
    private final RdmaDevice.ListenerLimits limits;
    private final LinkedHashSet<Seat> pending = new LinkedHashSet<>(); // oldest first
    private final Map<InetAddress, Integer> pendingBySource = new HashMap<>();
    private int served;

    QueuePairAdmission(RdmaDevice.ListenerLimits limits) {
        this.limits = limits;
    }

    /** One accepted queue pair's place: pending until its handler authenticates it, then served, until it leaves. */
    final class Seat {
        private final InetAddress source; // null where the device cannot tell
        private final Runnable close;
        private boolean evicted;
        private boolean serving;
        private boolean left;

        private Seat(InetAddress source, Runnable close) {
            this.source = source;
            this.close = close;
        }

        /**
         * After the handler was made and after each request it answered: moves the queue pair
         * to the served ones once {@code handler} authenticated it. False when it must end:
         * it was closed for a newer one, or the listener serves as many as it may.
         */
        boolean admit(RdmaDevice.RequestHandler handler) {
            synchronized (QueuePairAdmission.this) {
                if (evicted || left) {
                    return false;
                }
                if (serving || !handler.authenticated()) {
                    return true;
                }
                if (served >= limits.maxConnections()) {
                    return false;
                }
                forgetPending(this);
                serving = true;
                served++;
                return true;
            }
        }

        /** The queue pair ended: its place is free. */
        void leave() {
            synchronized (QueuePairAdmission.this) {
                if (left) {
                    return;
                }
                left = true;
                if (serving) {
                    served--;
                } else if (!evicted) {
                    forgetPending(this);
                }
            }
        }
    }

    /**
     * Seats a queue pair that just connected from {@code source}, closing (with {@code close}
     * of its seat) the oldest pending one of that source, or of all, when the budget is full.
     */
    Seat arrive(InetAddress source, Runnable close) {
        Seat seat = new Seat(source, close);
        Seat evict = null;
        synchronized (this) {
            if (source != null && pendingBySource.getOrDefault(source, 0) >= limits.maxPendingPerSource()) {
                evict = oldestPending(source);
            } else if (pending.size() >= limits.maxPending()) {
                evict = oldestPending(null);
            }
            if (evict != null) {
                forgetPending(evict);
                evict.evicted = true;
            }
            pending.add(seat);
            if (source != null) {
                pendingBySource.merge(source, 1, Integer::sum);
            }
        }
        if (evict != null) {
            evict.close.run(); // outside the lock: a device's close may wait on its connection manager
        }
        return seat;
    }

    synchronized int pending() {
        return pending.size();
    }

    synchronized int served() {
        return served;
    }

    private Seat oldestPending(InetAddress source) {
        for (Seat s : pending) {
            if (source == null || source.equals(s.source)) {
                return s;
            }
        }
        throw new IllegalStateException("no pending queue pair" + (source == null ? "" : " from " + source) + " to close, though the budget is full");
    }

    private void forgetPending(Seat seat) {
        if (pending.remove(seat) && seat.source != null) {
            pendingBySource.computeIfPresent(seat.source, (s, n) -> n == 1 ? null : n - 1);
        }
    }
}

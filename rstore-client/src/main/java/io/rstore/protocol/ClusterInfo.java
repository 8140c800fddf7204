package io.rstore.protocol;

import java.util.List;

/**
 * The master's view of itself: its version, how long it has run, and for each memory server
 * (by id) how long ago it last answered the heartbeat, or -1 for a server in the master's
 * own process, which is never pinged.
 */
public record ClusterInfo(String version, long uptimeMillis, List<Long> heartbeatAgeMillis) {
    public ClusterInfo {
        heartbeatAgeMillis = List.copyOf(heartbeatAgeMillis);
    }

    /** Milliseconds since server {@code id} last answered the heartbeat, or -1 (never pinged, or unknown here). */
    public long heartbeatAgeMillis(int id) {
        return id >= 0 && id < heartbeatAgeMillis.size() ? heartbeatAgeMillis.get(id) : -1;
    }
}

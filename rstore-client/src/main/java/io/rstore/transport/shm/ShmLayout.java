package io.rstore.transport.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How a memory server lays out its chunks for the shm transport, shared by both sides:
 * one directory per running server (mode 0700), one file per chunk named by its id and
 * key (mode 0600; a client that lacks the key cannot name the file), and an {@code alive}
 * file whose first long is the server's heartbeat, System.nanoTime() at its last beat
 * (one clock for every process of a host), or 0 once it stopped.
 */
public final class ShmLayout {
    public static final String HEARTBEAT_FILE = "alive";
    /** How often a server beats, and how stale a beat may be before clients call the server dead. */
    public static final long BEAT_NANOS = 100_000_000L;
    public static final long LEASE_NANOS = 2_000_000_000L;

    private ShmLayout() {
    }

    public static Path chunkFile(Path directory, int chunkId, long key) {
        return directory.resolve("chunk-" + chunkId + "-" + Long.toHexString(key));
    }

    /** This boot of this host: chunk files are only reachable from the kernel that holds them. Empty if unknown. */
    public static String bootId() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The location a server advertises: {@code BOOT-ID:DIRECTORY}. */
    public static String location(Path directory) {
        return bootId() + ":" + directory.toAbsolutePath();
    }

    /** The directory of {@code location} if it is on this host (same boot id) and visible here, else null. */
    public static Path localDirectory(String location) {
        int colon = location == null ? -1 : location.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        String boot = bootId();
        Path directory = Path.of(location.substring(colon + 1));
        if (boot.isEmpty() || !boot.equals(location.substring(0, colon)) || !Files.isDirectory(directory)) {
            return null;
        }
        return directory;
    }
}

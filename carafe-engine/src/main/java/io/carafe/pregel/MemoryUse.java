package io.carafe.pregel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What memory processes hold and what the machine has left, as Linux tells it: resident
 * sets from {@code /proc/PID/status}, available memory from {@code /proc/meminfo} and, inside
 * a cgroup (v2) with a memory limit, what the limit leaves. -1 where Linux does not answer.
 */
public final class MemoryUse {
    private MemoryUse() {
    }

    /** The resident set of process {@code pid} in bytes (VmRSS), or -1 (gone, or not Linux). */
    public static long residentBytes(long pid) {
        return kilobytes(Path.of("/proc/" + pid + "/status"), "VmRSS:");
    }

    /** This process's resident set in bytes, or -1. */
    public static long residentBytes() {
        return residentBytes(ProcessHandle.current().pid());
    }

    /**
     * The memory still to be had: the machine's MemAvailable, or less when this process's
     * cgroup limits memory (its limit less its use); -1 if Linux does not say.
     */
    public static long availableBytes() {
        long available = kilobytes(Path.of("/proc/meminfo"), "MemAvailable:");
        long cgroupLeft = cgroupLeftBytes();
        if (cgroupLeft >= 0 && (available < 0 || cgroupLeft < available)) {
            return cgroupLeft;
        }
        return available;
    }

    /** memory.max less memory.current of this process's cgroup (v2), or -1 without a limit. */
    private static long cgroupLeftBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                if (line.startsWith("0::")) {
                    Path dir = Path.of("/sys/fs/cgroup" + line.substring(3));
                    String max = Files.readString(dir.resolve("memory.max")).trim();
                    if (max.equals("max")) {
                        return -1;
                    }
                    long current = Long.parseLong(Files.readString(dir.resolve("memory.current")).trim());
                    return Math.max(0, Long.parseLong(max) - current);
                }
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            // no cgroup v2 or no memory controller: the machine's figure stands
        }
        return -1;
    }

    /** The value of a "Key:   1234 kB" line of {@code file} in bytes, or -1. */
    private static long kilobytes(Path file, String key) {
        try {
            List<String> lines = Files.readAllLines(file);
            for (String line : lines) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.substring(key.length()).replace("kB", "").trim()) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // gone, or not Linux
        }
        return -1;
    }
}

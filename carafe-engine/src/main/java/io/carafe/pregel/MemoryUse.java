package io.carafe.pregel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * What memory processes hold and what the machine has left, as Linux tells it: resident
 * sets from {@code /proc/PID/status}, available memory from {@code /proc/meminfo} and, inside
 * a cgroup (v2, or v1's memory controller) with a memory limit, what the limit leaves. -1
 * where Linux does not answer.
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

    /** An unset cgroup v1 limit reads as about this (the largest page-aligned long). */
    private static final long V1_UNLIMITED = Long.MAX_VALUE / 2;

    /**
     * What this process's cgroup limit leaves: memory.max less memory.current (v2), or
     * memory.limit_in_bytes less memory.usage_in_bytes (v1's memory controller); -1 without a
     * limit.
     */
    private static long cgroupLeftBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] parts = line.split(":", 3);
                if (parts.length < 3) {
                    continue;
                }
                if (parts[0].equals("0") && parts[1].isEmpty()) {
                    long left = left(Path.of("/sys/fs/cgroup" + parts[2]), "memory.max", "memory.current");
                    if (left >= 0) {
                        return left;
                    }
                } else if (Arrays.asList(parts[1].split(",")).contains("memory")) {
                    return left(Path.of("/sys/fs/cgroup/memory" + parts[2]), "memory.limit_in_bytes", "memory.usage_in_bytes");
                }
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            // no cgroup, or no memory controller: the machine's figure stands
        }
        return -1;
    }

    /** {@code limit} less {@code usage} in cgroup directory {@code dir}; -1 when unlimited or not there. */
    private static long left(Path dir, String limit, String usage) throws IOException {
        if (!Files.exists(dir.resolve(limit))) {
            return -1;
        }
        String max = Files.readString(dir.resolve(limit)).trim();
        if (max.equals("max") || Long.parseLong(max) >= V1_UNLIMITED) {
            return -1;
        }
        long used = Long.parseLong(Files.readString(dir.resolve(usage)).trim());
        return Math.max(0, Long.parseLong(max) - used);
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

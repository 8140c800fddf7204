package io.rstore.transport.rdma;

import io.rstore.ErrorCode;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real RDMA device through DiSNI. DiSNI's jar holds no native code: {@code libdisni}
 * must be built against libibverbs/librdmacm and be on {@code java.library.path}, and
 * the first use of DiSNI without it leaves its classes unusable for the JVM's life. So
 * whether it can work is decided up front, from the devices in /sys/class/infiniband and
 * the library on the path, before any DiSNI class is touched (docs/rdma.md).
 */
final class DisniDevice {
    private static final Path DEVICES = Path.of("/sys/class/infiniband");

    private DisniDevice() {
    }

    /** RDMA devices of this host (names under /sys/class/infiniband). */
    static List<String> devices() {
        if (!Files.isDirectory(DEVICES)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(DEVICES)) {
            return entries.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** {@code libdisni.so} on java.library.path, or null. */
    static Path library() {
        for (String dir : System.getProperty("java.library.path", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, System.mapLibraryName("disni"));
            if (Files.isReadable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /** Why DiSNI cannot be used here, or null if it can. */
    static String unavailable() {
        if (devices().isEmpty()) {
            return "this host has no RDMA device (/sys/class/infiniband is empty or missing)";
        }
        if (library() == null) {
            return "libdisni is not on java.library.path (" + System.getProperty("java.library.path") + "); build it as docs/rdma.md says";
        }
        return "the DiSNI device is not built yet: RStore's rdma transport runs on the emulated device only (docs/rdma.md)";
    }

    static RdmaDevice open() {
        throw ErrorCode.UNSUPPORTED.exception("cannot use DiSNI: " + unavailable());
    }
}

package io.rstore.server;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Gives a file its blocks on disk before it is mapped, so that a store through the mapping
 * can never fault for want of space: a file grown by {@code ftruncate} alone is sparse, and
 * a store into a page the file system cannot back raises SIGBUS (in Java, an
 * {@code InternalError} from an unsafe access) in whichever thread touches it. With the
 * blocks taken up front, a full disk is an error at allocation, on the control path.
 * {@code posix_fallocate} where libc has it (tmpfs, ext4 and xfs take it natively; glibc
 * writes zeros elsewhere), else zeros written through the channel.
 */
@SuppressWarnings("restricted") // native access: the launchers enable it
final class FileSpace {
    private static final int O_RDWR = 2;
    private static final MethodHandle OPEN;
    private static final MethodHandle POSIX_FALLOCATE;
    private static final MethodHandle CLOSE;

    static {
        MethodHandle open = null;
        MethodHandle fallocate = null;
        MethodHandle close = null;
        try {
            Linker linker = Linker.nativeLinker();
            var libc = linker.defaultLookup();
            open = linker.downcallHandle(libc.find("open").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), Linker.Option.firstVariadicArg(2));
            fallocate = linker.downcallHandle(libc.find("posix_fallocate").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
            close = linker.downcallHandle(libc.find("close").orElseThrow(), FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        } catch (Throwable unavailable) { // no native access, or another libc: write zeros instead
            open = null;
        }
        OPEN = open;
        POSIX_FALLOCATE = fallocate;
        CLOSE = close;
    }

    private FileSpace() {
    }

    /** Makes {@code file} (which exists) at least {@code bytes} long with every block allocated; an IOException says why not (ENOSPC: "No space left on device"). */
    static void allocate(Path file, long bytes) throws IOException {
        if (OPEN == null) {
            writeZeros(file, bytes);
            return;
        }
        int error;
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), O_RDWR);
            if (fd < 0) {
                throw new IOException("cannot open " + file + " to allocate its blocks");
            }
            try {
                error = (int) POSIX_FALLOCATE.invokeExact(fd, 0L, bytes);
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("posix_fallocate failed on " + file + ": " + t, t);
        }
        if (error != 0) {
            throw new IOException(error == ENOSPC ? NO_SPACE_MESSAGE : "posix_fallocate failed with errno " + error);
        }
    }

    private static final int ENOSPC = 28;
    /** What the JDK's own file calls say for ENOSPC, which {@link io.rstore.internal.DurableFiles#noSpace} recognises. */
    private static final String NO_SPACE_MESSAGE = "No space left on device";

    private static void writeZeros(Path file, long bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
            for (long at = channel.size(); at < bytes; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                at += channel.write(zeros, at);
            }
        }
    }
}

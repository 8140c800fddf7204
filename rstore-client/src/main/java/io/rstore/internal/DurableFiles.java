package io.rstore.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** What the durable parts (the master's journal, durable memory servers, Pregel checkpoints) do with files. */
public final class DurableFiles {
    private DurableFiles() {
    }

    /** fsync of a file or a directory by its path: a directory's, so that names created or renamed in it survive a crash. */
    public static void sync(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** Whether a failed file call says the file system is full (ENOSPC) or the user's quota is spent (EDQUOT), as the JDK words them. */
    public static boolean noSpace(IOException e) {
        String m = String.valueOf(e.getMessage());
        return m.contains("No space left on device") || m.contains("Disk quota exceeded");
    }

    /** The lock on {@code file}, or null when another process, or this one, holds it. */
    public static FileLock tryLock(FileChannel file) throws IOException {
        try {
            return file.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }
}

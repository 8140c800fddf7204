package io.rstore.server;

import io.rstore.ErrorCode;
import io.rstore.transport.shm.ShmLayout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.stream.Stream;

import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

/**
 * A memory server's chunks as files for the shm transport ({@link ShmLayout}): a directory
 * of its own (0700) under the configured one, a file per chunk (0600) named by id and key
 * once registered, removed on release, and the heartbeat clients check. Directories left
 * by servers that were killed are removed when the next server starts there.
 */
public final class ShmChunkFiles implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final String PREFIX = "rstore-server-";

    /** A chunk's file before it has its final name. */
    public record ChunkFile(Path path, MemorySegment memory) {
    }

    private final Path directory;
    private final Arena heartbeatArena = Arena.ofShared();
    private final MemorySegment heartbeat;
    private final Thread beater;
    private final Int2ObjectOpenHashMap<Path> named = new Int2ObjectOpenHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private volatile boolean closed;
    private volatile boolean beating = true;

    /** Creates this server's directory under {@code parent} and starts beating. */
    public ShmChunkFiles(Path parent) {
        if (!Files.isDirectory(parent) || !Files.isWritable(parent)) {
            throw ErrorCode.INVALID_ARGUMENT.exception("rstore.shm.dir " + parent + " is not a writable directory; point it at a tmpfs"
                    + " (/dev/shm) or hugetlbfs mount, or leave it empty to serve over tcp only");
        }
        removeStale(parent);
        byte[] suffix = new byte[4];
        random.nextBytes(suffix);
        this.directory = parent.resolve(PREFIX + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(suffix));
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path alive = Files.createFile(directory.resolve(ShmLayout.HEARTBEAT_FILE), owner());
            try (FileChannel file = FileChannel.open(alive, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                this.heartbeat = file.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES, heartbeatArena);
            }
        } catch (IOException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot create shm chunk files under " + parent + ": " + e.getMessage());
        }
        beat();
        this.beater = Thread.ofPlatform().name("rstore-shm-heartbeat").daemon().start(() -> {
            while (beating) {
                beat();
                try {
                    Thread.sleep(ShmLayout.BEAT_NANOS / 1_000_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
    }

    private void beat() {
        LONG.setVolatile(heartbeat, 0L, System.nanoTime());
    }

    private static java.nio.file.attribute.FileAttribute<?> owner() {
        return PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    }

    /** What clients are told: {@code BOOT-ID:DIRECTORY}. */
    public String location() {
        return ShmLayout.location(directory);
    }

    /** A new zero-filled chunk file of {@code bytes}, mapped in {@code arena}; name it with {@link #publish}. */
    public ChunkFile create(Arena arena, long bytes) {
        byte[] name = new byte[8];
        random.nextBytes(name);
        Path path = directory.resolve("new-" + HexFormat.of().formatHex(name));
        try {
            Files.createFile(path, owner());
            try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MemorySegment memory = file.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena); // grows the file, zero-filled
                return new ChunkFile(path, memory);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // reporting the first failure
            }
            throw ErrorCode.OUT_OF_MEMORY.exception("cannot create a chunk file of " + bytes + " bytes in " + directory + ": " + e.getMessage());
        }
    }

    /** Gives chunk {@code id} the file {@code file} under the name its key makes; the chunk's previous file, if any, is removed. */
    public synchronized void publish(ChunkFile file, int id, long key) {
        Path target = ShmLayout.chunkFile(directory, id, key);
        try {
            Files.move(file.path(), target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw ErrorCode.UNKNOWN.exception("cannot name chunk file " + target + ": " + e.getMessage());
        }
        remove(id);
        named.put(id, target);
    }

    /** Removes chunk {@code id}'s file (its memory lives on while mapped, in this server and in clients). */
    public synchronized void remove(int id) {
        Path old = named.remove(id);
        if (old != null) {
            try {
                Files.deleteIfExists(old);
            } catch (IOException e) {
                io.rstore.config.Logs.get("rstore server").warn("cannot remove " + old + ": " + e.getMessage());
            }
        }
    }

    /** Stops the heartbeat: clients see the server dead at once, as if it had been killed. */
    public synchronized void stopBeating() {
        if (beating) {
            beating = false;
            beater.interrupt();
            try {
                beater.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            LONG.setVolatile(heartbeat, 0L, 0L);
        }
    }

    /** Stops the heartbeat and removes every file and the directory. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopBeating();
        heartbeatArena.close();
        deleteTree(directory);
    }

    /** Removes directories of servers whose process is gone (killed before they could clean up). */
    private static void removeStale(Path parent) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path entry : entries) {
                String rest = entry.getFileName().toString().substring(PREFIX.length());
                int dash = rest.indexOf('-');
                try {
                    long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                    if (ProcessHandle.of(pid).isEmpty()) {
                        deleteTree(entry);
                    }
                } catch (NumberFormatException e) {
                    // not one of ours
                }
            }
        } catch (IOException e) {
            // nothing to clean, or not allowed to look
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            io.rstore.config.Logs.get("rstore server").warn("cannot remove " + dir + ": " + e.getMessage());
        }
    }
}

package io.rstore.server;

import io.rstore.ErrorCode;
import io.rstore.config.Logs;
import io.rstore.internal.DurableFiles;
import io.rstore.transport.shm.ShmLayout;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import jdk.nio.mapmode.ExtendedMapMode;

/**
 * A memory server's chunks as files for the shm transport ({@link ShmLayout}): a directory
 * of its own (0700) under the configured one, a file per chunk (0600) named by id and key
 * once registered, removed on release, and the heartbeat clients check. Directories left
 * by servers that were killed are removed when the next server starts there.
 *
 * <p>{@link #persistent} files are the same, in a persistence directory the server owns
 * (locked, so no other server uses it) and keeps: they outlive the process, the
 * directory is fsynced whenever a chunk file is named or removed, and the next server
 * started there takes them back ({@link #kept}) under its identity, also kept there.
 */
public final class ShmChunkFiles implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final String PREFIX = "rstore-server-";

    /** A chunk's file before it has its final name. */
    public record ChunkFile(Path path, MemorySegment memory) {
    }

    /** A chunk file a persistent directory held when its server started: chunk {@code id} under {@code key}, of {@code bytes}. */
    public record Kept(int id, long key, long bytes, Path path) {
    }

    private static final String IDENTITY_FILE = "server-id";
    private static final String LOCK_FILE = "lock";

    private final Path directory;
    private final boolean persistent;
    private final FileChannel lock; // a persistent directory's, held while the server runs; else null
    private final String identity;  // a persistent directory's; else empty
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
        this.persistent = false;
        this.lock = null;
        this.identity = "";
        try {
            Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            this.heartbeat = mapHeartbeat(Files.createFile(directory.resolve(ShmLayout.HEARTBEAT_FILE), owner()));
        } catch (IOException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot create shm chunk files under " + parent + ": " + e.getMessage());
        }
        this.beater = startBeating();
    }

    private ShmChunkFiles(Path directory, FileChannel lock, String identity) throws IOException {
        this.directory = directory;
        this.persistent = true;
        this.lock = lock;
        this.identity = identity;
        Path alive = directory.resolve(ShmLayout.HEARTBEAT_FILE);
        if (!Files.exists(alive)) {
            Files.createFile(alive, owner());
        }
        this.heartbeat = mapHeartbeat(alive);
        this.beater = startBeating();
    }

    /**
     * The chunk files of a memory server that keeps them in {@code directory} across
     * restarts (created 0700 if absent): locked for this server alone, with the server's
     * identity kept in it; files of chunks being made when a server died (never given to
     * the master) are removed.
     */
    public static ShmChunkFiles persistent(Path directory) {
        FileChannel lock = null;
        try {
            if (!Files.isDirectory(directory)) {
                Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            lock = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            if (DurableFiles.tryLock(lock) == null) {
                throw ErrorCode.INVALID_ARGUMENT.exception("another memory server uses the persistence directory " + directory
                        + "; give each server its own");
            }
            try (DirectoryStream<Path> unnamed = Files.newDirectoryStream(directory, "new-*")) {
                for (Path file : unnamed) {
                    Files.delete(file);
                }
            }
            return new ShmChunkFiles(directory, lock, identity(directory));
        } catch (IOException e) {
            closeQuietly(lock);
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot use the persistence directory " + directory + ": " + e.getMessage()
                    + " (it must be a writable directory, or creatable)");
        } catch (RuntimeException e) {
            closeQuietly(lock);
            throw e;
        }
    }

    /** The identity kept in {@code directory}, made up and fsynced the first time. */
    private static String identity(Path directory) throws IOException {
        Path file = directory.resolve(IDENTITY_FILE);
        if (Files.exists(file)) {
            String kept = Files.readString(file).trim();
            if (kept.isEmpty()) {
                throw new IOException(file + " is empty; it holds the server's identity (remove the directory's chunk files with it, or restore it)");
            }
            return kept;
        }
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        String made = "server-" + HexFormat.of().formatHex(bytes);
        Path temporary = directory.resolve(IDENTITY_FILE + ".new");
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            out.write(ByteBuffer.wrap((made + "\n").getBytes(StandardCharsets.UTF_8)));
            out.force(true);
        }
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
        DurableFiles.sync(directory);
        return made;
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // reporting the first failure
            }
        }
    }

    /** Whether the files outlive the process (a persistence directory). */
    public boolean persistent() {
        return persistent;
    }

    /** Who the server is across restarts (kept in a persistence directory), or empty. */
    public String identity() {
        return identity;
    }

    /**
     * The chunk files a persistent directory holds, each now this server's under the id and
     * key its name says; map each with {@link #map}.
     */
    public synchronized List<Kept> kept() {
        List<Kept> kept = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "chunk-*-*")) {
            for (Path file : files) {
                String[] parts = file.getFileName().toString().split("-");
                try {
                    int id = Integer.parseInt(parts[1]);
                    long key = Long.parseUnsignedLong(parts[2], 16);
                    if (parts.length != 3 || !ShmLayout.chunkFile(directory, id, key).equals(file)) {
                        continue;
                    }
                    kept.add(new Kept(id, key, Files.size(file), file));
                    named.put(id, file);
                } catch (NumberFormatException e) {
                    // not a chunk file
                }
            }
        } catch (IOException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot list the chunk files in " + directory + ": " + e.getMessage());
        }
        return kept;
    }

    /** Maps a kept chunk file in {@code arena} at its own size (never growing it: a short file is reported, not zero-filled). */
    public MemorySegment map(Arena arena, Kept kept) {
        try (FileChannel file = FileChannel.open(kept.path(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return mapShared(file, kept.bytes(), arena);
        } catch (IOException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot map the chunk file " + kept.path() + ": " + e.getMessage());
        }
    }

    /** MAP_SHARED, and MAP_SYNC where the file system is DAX (persistent memory): then a store reaches the media with a flush alone. */
    private MemorySegment mapShared(FileChannel file, long bytes, Arena arena) throws IOException {
        if (persistent) {
            try {
                return file.map(ExtendedMapMode.READ_WRITE_SYNC, 0, bytes, arena);
            } catch (IOException | UnsupportedOperationException e) {
                // not DAX: an ordinary shared mapping, made durable by msync
            }
        }
        return file.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
    }

    /** Whether {@code directory} takes MAP_SYNC mappings (a DAX file system on persistent memory). */
    public static boolean dax(Path directory) {
        Path probe = directory.resolve("dax-probe-" + ProcessHandle.current().pid());
        try (FileChannel file = FileChannel.open(probe, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
                StandardOpenOption.DELETE_ON_CLOSE); Arena arena = Arena.ofConfined()) {
            file.map(ExtendedMapMode.READ_WRITE_SYNC, 0, 4096, arena);
            return true;
        } catch (IOException | UnsupportedOperationException | IllegalStateException e) {
            return false;
        }
    }

    private MemorySegment mapHeartbeat(Path alive) throws IOException {
        try (FileChannel file = FileChannel.open(alive, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return file.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES, heartbeatArena);
        }
    }

    private Thread startBeating() {
        return Thread.ofPlatform().name("rstore-shm-heartbeat").daemon().start(() -> {
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

    private static FileAttribute<?> owner() {
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
            FileSpace.allocate(path, bytes); // every block now, so no store through the mapping can fault on a full disk
            try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                MemorySegment memory = mapShared(file, bytes, arena);
                if (persistent) {
                    file.force(true); // its size on disk before its name is, so a power cut cannot leave an empty chunk file behind
                }
                return new ChunkFile(path, memory);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // reporting the first failure
            }
            if (DurableFiles.noSpace(e)) {
                throw ErrorCode.NO_SPACE.exception("no room for a chunk file of " + bytes + " bytes in " + directory + " (" + e.getMessage()
                        + ", " + usableBytes() + " bytes usable there)");
            }
            throw ErrorCode.OUT_OF_MEMORY.exception("cannot create a chunk file of " + bytes + " bytes in " + directory + ": " + e.getMessage());
        }
    }

    private long usableBytes() {
        try {
            return Files.getFileStore(directory).getUsableSpace();
        } catch (IOException e) {
            return -1;
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
        if (persistent) { // the name on disk before the master hears of the chunk
            try {
                DurableFiles.sync(directory);
            } catch (IOException e) {
                throw ErrorCode.UNKNOWN.exception("cannot fsync " + directory + " after naming " + target + ": " + e.getMessage());
            }
        }
    }

    /** Removes chunk {@code id}'s file (its memory lives on while mapped, in this server and in clients). */
    public synchronized void remove(int id) {
        Path old = named.remove(id);
        if (old != null) {
            try {
                Files.deleteIfExists(old);
            } catch (IOException e) {
                Logs.get("rstore server").warn("cannot remove " + old + ": " + e.getMessage());
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

    /** Stops the heartbeat and removes every file and the directory; a persistent directory keeps its chunk files, and is unlocked. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopBeating();
        heartbeatArena.close();
        if (persistent) {
            closeQuietly(lock);
        } else {
            deleteTree(directory);
        }
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
            Logs.get("rstore server").warn("cannot remove " + dir + ": " + e.getMessage());
        }
    }
}

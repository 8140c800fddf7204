package io.rstore.master;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.config.Logs;
import io.rstore.internal.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * The master's metadata on disk, in a persistence directory of its own: an append-only
 * {@code journal} of {@link MetadataChanges}, written and fsynced by {@link #commit} before
 * a call is answered, and a {@code snapshot} of the whole state that lets the journal start
 * over when it grows. Opening the directory replays both.
 *
 * <p>A record is {@code [int length][int crc32c][long seq][byte type][payload]}, the CRC over
 * seq, type and payload. The snapshot starts with a magic and the last journal sequence
 * number it covers; the journal's records after that number are replayed on top, so a
 * crash between writing a snapshot and emptying the journal replays nothing twice. A torn
 * last record (the master died mid-write, so its call was never answered) is cut off and
 * the last complete record wins; a bad record with others after it is corruption, and
 * opening fails naming the file and offset.
 */
final class Journal implements AutoCloseable {
    static final String JOURNAL = "journal";
    static final String SNAPSHOT = "snapshot";
    private static final long MAGIC = 0x52_53_54_4F_52_45_4D_31L; // "RSTOREM1"
    private static final int HEADER = 4 + 4 + 8 + 1;
    private static final int MAX_RECORD = 1 << 20;
    /** The journal and snapshot are the owner's alone (0600): they hold the chunks' keys. */
    private static final FileAttribute<?> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private static final byte SERVER_JOINED = 1;
    private static final byte NAMESPACE_CREATED = 2;
    private static final byte NAMESPACE_DELETED = 3;
    private static final byte CHUNK_APPENDED = 4;
    private static final byte LAST_CHUNK_DROPPED = 5;
    private static final byte STRIPE_MOVED = 6;
    private static final byte CHUNK_POOLED = 7;
    private static final byte POOLED_CHUNK_TAKEN = 8;
    private static final byte CHUNK_KEYED = 9;
    private static final byte SEGMENT_PLACED = 10;
    private static final byte SEGMENT_FREED = 11;
    private static final byte POOL_CLEARED = 12;

    private final Path directory;
    private final FileChannel lockFile;
    private final FileLock lock;
    private final long snapshotAfterBytes;
    private FileChannel journal;
    private final Records pending = new Records(); // changes since the last commit; its numbering goes on from the journal's
    private long nextSeq; // while replaying: the number the next journal record must have
    private long journalBytes;
    private long snapshotAt; // journal size past which a snapshot is due; moved on after one fails, so a full disk is not retried every call
    private RStoreException failed; // a write that failed: the state on disk is behind, so no more changes are taken

    private Journal(Path directory, FileChannel lockFile, FileLock lock, long snapshotAfterBytes) {
        this.directory = directory;
        this.lockFile = lockFile;
        this.lock = lock;
        this.snapshotAfterBytes = snapshotAfterBytes;
    }

    /**
     * Opens (creating if need be) the persistence directory {@code directory}, which no other
     * master may hold, and replays its snapshot and journal into {@code state}; {@code log}
     * hears of a torn record cut off. The journal then takes new changes. It asks for a
     * snapshot once it holds more than {@code snapshotAfterBytes}.
     */
    static Journal open(Path directory, MetadataChanges state, long snapshotAfterBytes, Consumer<String> log) {
        try {
            if (!Files.isDirectory(directory)) { // 0700: the journal holds every chunk's key, which is as good as access to its bytes
                Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(
                        PosixFilePermissions.fromString("rwx------")));
            }
        } catch (IOException e) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot create the master's persistence directory " + directory + ": " + e.getMessage());
        }
        FileChannel lockFile = null;
        try {
            lockFile = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = DurableFiles.tryLock(lockFile);
            if (lock == null) {
                throw ErrorCode.INVALID_ARGUMENT.exception("another master holds the persistence directory " + directory
                        + "; give each master its own");
            }
            Journal journal = new Journal(directory, lockFile, lock, snapshotAfterBytes);
            journal.replay(state, log);
            return journal;
        } catch (IOException e) {
            close(lockFile);
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot open the master's persistence directory " + directory + ": " + e.getMessage());
        } catch (RuntimeException e) {
            close(lockFile);
            throw e;
        }
    }

    private void replay(MetadataChanges state, Consumer<String> log) throws IOException {
        long covered = 0;
        Path snapshot = directory.resolve(SNAPSHOT);
        if (Files.exists(snapshot)) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(snapshot));
            if (bytes.remaining() < 16 || bytes.getLong() != MAGIC) {
                throw corrupt(snapshot, 0, "it does not start with the snapshot header");
            }
            covered = bytes.getLong();
            long end = read(snapshot, bytes, -1, state);
            if (end != bytes.limit()) {
                throw corrupt(snapshot, end, "a record is cut short (a snapshot is renamed into place only once complete)");
            }
        }
        Path file = directory.resolve(JOURNAL);
        journal = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE), OWNER_ONLY);
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(journal.size()));
        while (bytes.hasRemaining() && journal.read(bytes, bytes.position()) >= 0) {
            // read it all
        }
        bytes.flip();
        nextSeq = covered + 1;
        long end = read(file, bytes, covered, state);
        if (end < bytes.limit()) {
            log.accept("the journal " + file + " ends in a torn record at offset " + end + " (" + (bytes.limit() - end)
                    + " bytes, a change whose call was never answered); cut off, the last complete record wins");
            journal.truncate(end);
            journal.force(true);
        }
        journalBytes = end;
        journal.position(end);
        pending.seq = nextSeq - 1;
    }

    /**
     * Replays the records of {@code bytes} from its position into {@code state} and returns
     * where the complete records end. With {@code covered} >= 0 (the journal) records up to
     * that sequence number are skipped, sequence numbers must run on without a gap, and a
     * bad last record is torn rather than corrupt.
     */
    private long read(Path file, ByteBuffer bytes, long covered, MetadataChanges state) {
        boolean journalFile = covered >= 0;
        while (bytes.hasRemaining()) {
            int at = bytes.position();
            int length = bytes.remaining() >= 4 ? bytes.getInt(at) : -1;
            boolean whole = length >= 0 && length <= MAX_RECORD && bytes.remaining() >= HEADER + length;
            boolean last = !whole || bytes.remaining() == HEADER + length;
            if (!whole || crc(bytes, at, length) != bytes.getInt(at + 4)) {
                if (journalFile && last) {
                    return at; // torn: cut off by the caller
                }
                throw corrupt(file, at, whole ? "its checksum does not match" : "its length (" + length + ") runs past the end");
            }
            long seq = bytes.getLong(at + 8);
            byte type = bytes.get(at + 16);
            ByteBuffer payload = bytes.slice(at + HEADER, length);
            bytes.position(at + HEADER + length);
            if (journalFile) {
                if (seq <= covered) {
                    continue;
                }
                if (seq != nextSeq) {
                    throw corrupt(file, at, "sequence number " + seq + " where " + nextSeq + " was due");
                }
                nextSeq++;
            }
            try {
                apply(type, payload, state);
            } catch (RuntimeException e) {
                throw corrupt(file, at, "record type " + type + " does not apply: " + e.getMessage());
            }
        }
        return bytes.position();
    }

    private static int crc(ByteBuffer bytes, int at, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes.slice(at + 8, 8 + 1 + length));
        return (int) crc.getValue();
    }

    private static RStoreException corrupt(Path file, long offset, String why) {
        return ErrorCode.INVALID_ARGUMENT.exception("the master's " + file + " is corrupt at offset " + offset + ": " + why
                + ". Restore the persistence directory from a backup; the master does not start on metadata it cannot trust");
    }

    private static void apply(byte type, ByteBuffer in, MetadataChanges to) {
        switch (type) {
            case SERVER_JOINED -> to.serverJoined(in.getInt(), string(in), in.get() != 0, string(in), string(in), string(in));
            case NAMESPACE_CREATED -> to.namespaceCreated(in.getLong(), string(in), in.getInt(), in.getInt());
            case NAMESPACE_DELETED -> to.namespaceDeleted(in.getLong());
            case CHUNK_APPENDED -> to.chunkAppended(in.getLong(), in.getInt(), in.getInt(), in.getLong(), in.get() != 0);
            case LAST_CHUNK_DROPPED -> to.lastChunkDropped(in.getLong());
            case STRIPE_MOVED -> to.stripeMoved(in.getLong(), in.getInt());
            case CHUNK_POOLED -> to.chunkPooled(in.getInt(), in.getInt(), in.getLong());
            case POOLED_CHUNK_TAKEN -> to.pooledChunkTaken(in.getInt());
            case POOL_CLEARED -> to.poolCleared(in.getInt());
            case CHUNK_KEYED -> to.chunkKeyed(in.getInt(), in.getInt(), in.getLong());
            case SEGMENT_PLACED -> to.segmentPlaced(in.getLong(), in.getLong(), in.getLong(), in.getLong());
            case SEGMENT_FREED -> to.segmentFreed(in.getLong(), in.getLong());
            default -> throw new IllegalArgumentException("unknown record type " + type);
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes left over");
        }
    }

    private static String string(ByteBuffer in) {
        byte[] bytes = new byte[in.getInt()];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    // ---- new changes: buffered, written and fsynced by commit ----

    /**
     * Writes and fsyncs the changes made since the last commit; the master calls it before it
     * answers a call. A failed write fails this call and every later change: the master
     * keeps serving what it has but takes no change it could not keep.
     */
    void commit() {
        if (pending.isEmpty()) {
            return;
        }
        checkWritable();
        ByteBuffer bytes = pending.flip();
        try {
            while (bytes.hasRemaining()) {
                journal.write(bytes);
            }
            journal.force(false);
            journalBytes += bytes.limit();
        } catch (IOException e) {
            failed = writeFailed(e, "the master could not write its journal in " + directory + " (" + e.getMessage()
                    + "); it takes no more changes: free the disk, then restart it");
            throw failed;
        } finally {
            pending.clear();
        }
    }

    /** Fails if a write has failed before: the caller must not change what it could not keep. */
    void checkWritable() {
        if (failed != null) {
            throw failed;
        }
    }

    /** Where the master records its changes until the next {@link #commit}. */
    MetadataChanges changes() {
        return pending;
    }

    /** Whether the journal has grown enough that {@link #snapshot} should start it over. */
    boolean wantsSnapshot() {
        return journalBytes > Math.max(snapshotAt, snapshotAfterBytes);
    }

    /**
     * Writes the whole state, told by {@code state} as the changes that would rebuild it, to
     * a new snapshot (fsynced, then renamed into place), then empties the journal. Called
     * after a commit, with nothing pending.
     */
    void snapshot(Consumer<MetadataChanges> state) {
        checkWritable();
        Records all = new Records();
        state.accept(all);
        Path temporary = directory.resolve(SNAPSHOT + ".new");
        try (FileChannel out = FileChannel.open(temporary, Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE), OWNER_ONLY)) {
            ByteBuffer header = ByteBuffer.allocate(16).putLong(MAGIC).putLong(pending.seq).flip();
            out.write(header);
            ByteBuffer body = all.flip();
            while (body.hasRemaining()) {
                out.write(body);
            }
            out.force(true);
        } catch (IOException e) {
            snapshotAt = journalBytes + snapshotAfterBytes;
            throw writeFailed(e, "cannot write a snapshot in " + directory + ": " + e.getMessage() + "; the journal goes on growing"
                    + " (the next try after " + snapshotAfterBytes + " more bytes of it)");
        }
        try {
            Files.move(temporary, directory.resolve(SNAPSHOT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            DurableFiles.sync(directory);
            journal.truncate(0);
            journal.force(true);
            journal.position(0);
            journalBytes = 0;
            snapshotAt = 0;
        } catch (IOException e) {
            failed = writeFailed(e, "the master could not start its journal over in " + directory + " (" + e.getMessage()
                    + "); it takes no more changes: restart it");
            throw failed;
        }
    }

    /** A write of the journal or a snapshot failed: NO_SPACE when the disk is full, logged either way, since the caller only sees its own call fail. */
    private static RStoreException writeFailed(IOException e, String what) {
        RStoreException failure = (DurableFiles.noSpace(e) ? ErrorCode.NO_SPACE : ErrorCode.UNKNOWN).exception(what);
        Logs.get("rstore master").error(failure.getMessage());
        return failure;
    }

    /** The journal's size on disk now. */
    long bytes() {
        return journalBytes;
    }

    @Override
    public void close() {
        close(journal);
        try {
            lock.release();
        } catch (IOException | RuntimeException e) {
            // closing the channel releases it anyway
        }
        close(lockFile);
    }

    private static void close(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing left to do with it
            }
        }
    }

    /**
     * Changes encoded as records into one growing buffer, numbered on from {@code seq}: the
     * journal's pending ones, or a snapshot's (whose numbers are not read).
     */
    private static final class Records implements MetadataChanges {
        private ByteBuffer buffer = ByteBuffer.allocate(4096);
        private int start = -1;
        private long seq;

        boolean isEmpty() {
            return buffer.position() == 0;
        }

        private Records next(byte type) {
            room(HEADER);
            start = buffer.position();
            buffer.putInt(0).putInt(0).putLong(++seq).put(type);
            return this;
        }

        Records putInt(int v) {
            room(4);
            buffer.putInt(v);
            return this;
        }

        Records putLong(long v) {
            room(8);
            buffer.putLong(v);
            return this;
        }

        Records put(boolean v) {
            room(1);
            buffer.put((byte) (v ? 1 : 0));
            return this;
        }

        Records putString(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            room(4 + bytes.length);
            buffer.putInt(bytes.length).put(bytes);
            return this;
        }

        void end() {
            int length = buffer.position() - start - HEADER;
            buffer.putInt(start, length);
            buffer.putInt(start + 4, crc(buffer, start, length));
            start = -1;
        }

        private void room(int bytes) {
            if (buffer.remaining() < bytes) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes));
                buffer.flip();
                buffer = bigger.put(buffer);
            }
        }

        ByteBuffer flip() {
            return buffer.duplicate().flip();
        }

        void clear() {
            buffer.clear();
            if (buffer.capacity() > 1 << 20) {
                buffer = ByteBuffer.allocate(4096); // one huge call does not pin its buffer for ever
            }
        }

        @Override
        public void serverJoined(int id, String identity, boolean durable, String address, String shm, String rdma) {
            next(SERVER_JOINED).putInt(id).putString(identity).put(durable).putString(address).putString(shm).putString(rdma).end();
        }

        @Override
        public void namespaceCreated(long id, String name, int stripe, int flags) {
            next(NAMESPACE_CREATED).putLong(id).putString(name).putInt(stripe).putInt(flags).end();
        }

        @Override
        public void namespaceDeleted(long id) {
            next(NAMESPACE_DELETED).putLong(id).end();
        }

        @Override
        public void chunkAppended(long namespace, int server, int chunkId, long key, boolean mappedFile) {
            next(CHUNK_APPENDED).putLong(namespace).putInt(server).putInt(chunkId).putLong(key).put(mappedFile).end();
        }

        @Override
        public void lastChunkDropped(long namespace) {
            next(LAST_CHUNK_DROPPED).putLong(namespace).end();
        }

        @Override
        public void stripeMoved(long namespace, int stripe) {
            next(STRIPE_MOVED).putLong(namespace).putInt(stripe).end();
        }

        @Override
        public void chunkPooled(int server, int chunkId, long key) {
            next(CHUNK_POOLED).putInt(server).putInt(chunkId).putLong(key).end();
        }

        @Override
        public void pooledChunkTaken(int server) {
            next(POOLED_CHUNK_TAKEN).putInt(server).end();
        }

        @Override
        public void poolCleared(int server) {
            next(POOL_CLEARED).putInt(server).end();
        }

        @Override
        public void chunkKeyed(int server, int chunkId, long key) {
            next(CHUNK_KEYED).putInt(server).putInt(chunkId).putLong(key).end();
        }

        @Override
        public void segmentPlaced(long namespace, long address, long length, long span) {
            next(SEGMENT_PLACED).putLong(namespace).putLong(address).putLong(length).putLong(span).end();
        }

        @Override
        public void segmentFreed(long namespace, long address) {
            next(SEGMENT_FREED).putLong(namespace).putLong(address).end();
        }
    }
}

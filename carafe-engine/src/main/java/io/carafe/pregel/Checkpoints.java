package io.carafe.pregel;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A job's checkpoints, in a directory of its own: {@code step-C} holds what superstep C
 * starts from, one file per worker (its vertex values, halted bits and the messages it
 * sent in superstep C-1, as their containers hold them) and the coordinator's (totals,
 * aggregates, globals and the supersteps so far). Workers write into {@code step-C.partial};
 * once every worker has finished superstep C-1 the coordinator adds its file, fsyncs, and
 * renames the directory to {@code step-C}: a checkpoint interrupted halfway keeps its
 * {@code .partial} name and is never read. Older checkpoints go when a newer one is complete.
 */
final class Checkpoints {
    private static final long MAGIC = 0x31544e5043_474552L; // "REGCPNT1"
    /** The coordinator's file (its messaging and each superstep's dense partitions); one written with {@link #MAGIC}, before them, is refused. */
    private static final long COORDINATOR_MAGIC = 0x32544e5043_474552L; // "REGCPNT2"
    private static final String STEP = "step-";
    private static final String PARTIAL = ".partial";
    private static final String COORDINATOR = "coordinator";

    /**
     * What the coordinator keeps of a checkpoint: superstep C's inputs and the history before
     * it; {@code messaging}: how the job's messages travelled, which its workers' parts hold.
     */
    record CoordinatorState(long superstep, long active, long messages, long[] aggregates, long[] globals, List<PregelJob.Superstep> history,
                            Messaging messaging) {
    }

    private Checkpoints() {
    }

    private static Path step(Path directory, long superstep, boolean complete) {
        return directory.resolve(STEP + superstep + (complete ? "" : PARTIAL));
    }

    private static Path workerFile(Path step, int index) {
        return step.resolve("worker-" + index);
    }

    /** The superstep of the latest complete checkpoint in {@code directory}, or -1. */
    static long latest(Path directory) {
        long latest = -1;
        if (directory == null || !Files.isDirectory(directory)) {
            return latest;
        }
        try (DirectoryStream<Path> steps = Files.newDirectoryStream(directory, STEP + "*")) {
            for (Path p : steps) {
                String name = p.getFileName().toString();
                if (!name.endsWith(PARTIAL) && Files.exists(p.resolve(COORDINATOR))) {
                    latest = Math.max(latest, Long.parseLong(name.substring(STEP.length())));
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new PregelException("cannot list the checkpoints in " + directory + ": " + e.getMessage(), e);
        }
        return latest;
    }

    /**
     * Worker {@code index}'s part of the checkpoint superstep {@code superstep} starts from:
     * {@code sections} (values, halted bits, then its sent messages), each length-prefixed,
     * written and fsynced before the worker reports the superstep finished.
     */
    static void writeWorker(Path directory, long superstep, int index, List<MemorySegment> sections) {
        Path step = step(directory, superstep, false);
        try {
            Files.createDirectories(step);
            try (FileChannel out = FileChannel.open(workerFile(step, index), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                write(out, ByteBuffer.allocate(24).putLong(MAGIC).putLong(superstep).putInt(index).putInt(sections.size()).flip());
                for (MemorySegment section : sections) {
                    write(out, ByteBuffer.allocate(8).putLong(section.byteSize()).flip());
                    write(out, bytes(section));
                }
                out.force(false);
            }
        } catch (IOException e) {
            throw new PregelException("worker " + index + " cannot write its checkpoint in " + step + ": " + e.getMessage(), e);
        }
    }

    /** The section as a buffer: off-heap memory as it is, a heap array other than byte[] copied (only those wrap). */
    private static ByteBuffer bytes(MemorySegment section) {
        if (section.isNative() || section.heapBase().orElse(null) instanceof byte[]) {
            return section.asByteBuffer();
        }
        byte[] copy = new byte[Math.toIntExact(section.byteSize())];
        MemorySegment.copy(section, 0, MemorySegment.ofArray(copy), 0, copy.length);
        return ByteBuffer.wrap(copy);
    }

    private static void write(FileChannel out, ByteBuffer bytes) throws IOException {
        while (bytes.hasRemaining()) {
            out.write(bytes);
        }
    }

    /** Worker {@code index}'s sections of the complete checkpoint {@code superstep}, mapped in {@code arena}. */
    static List<MemorySegment> readWorker(Path directory, long superstep, int index, Arena arena) {
        Path file = workerFile(step(directory, superstep, true), index);
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment all = in.map(FileChannel.MapMode.READ_ONLY, 0, in.size(), arena);
            ByteBuffer header = all.asSlice(0, 24).asByteBuffer();
            if (all.byteSize() < 24 || header.getLong() != MAGIC || header.getLong() != superstep || header.getInt() != index) {
                throw new PregelException(file + " is not worker " + index + "'s part of checkpoint " + superstep, null);
            }
            int count = header.getInt();
            List<MemorySegment> sections = new ArrayList<>(count);
            long at = 24;
            for (int i = 0; i < count; i++) {
                long length = all.asSlice(at, 8).asByteBuffer().getLong();
                sections.add(all.asSlice(at + 8, length));
                at += 8 + length;
            }
            return sections;
        } catch (IOException | IndexOutOfBoundsException e) {
            throw new PregelException("cannot read " + file + " (a checkpoint's worker part): " + e.getMessage(), e);
        }
    }

    /**
     * Completes checkpoint {@code state.superstep()}: the coordinator's file beside the
     * workers', everything fsynced, the directory renamed into place; then older ones go.
     */
    static void complete(Path directory, CoordinatorState state, int workers) {
        Path partial = step(directory, state.superstep(), false);
        try {
            for (int i = 0; i < workers; i++) {
                if (!Files.exists(workerFile(partial, i))) {
                    throw new PregelException("checkpoint " + state.superstep() + " lacks worker " + i + "'s part in " + partial, null);
                }
            }
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(partial.resolve(COORDINATOR))))) {
                out.writeLong(COORDINATOR_MAGIC);
                out.writeLong(state.superstep());
                out.writeUTF(state.messaging().name());
                out.writeLong(state.active());
                out.writeLong(state.messages());
                writeLongs(out, state.aggregates());
                writeLongs(out, state.globals());
                out.writeInt(state.history().size());
                for (PregelJob.Superstep s : state.history()) {
                    out.writeLong(s.index());
                    out.writeDouble(s.seconds());
                    out.writeLong(s.computedVertices());
                    out.writeLong(s.activeVertices());
                    out.writeLong(s.messages());
                    out.writeLong(s.bytesMoved());
                    out.writeInt(s.densePartitions());
                    out.writeInt(s.aggregates().length);
                    for (double a : s.aggregates()) {
                        out.writeDouble(a);
                    }
                }
            }
            sync(partial.resolve(COORDINATOR));
            sync(partial);
            Path done = step(directory, state.superstep(), true);
            Files.move(partial, done, StandardCopyOption.ATOMIC_MOVE);
            sync(directory);
            try (DirectoryStream<Path> steps = Files.newDirectoryStream(directory, STEP + "*")) {
                for (Path old : steps) {
                    if (!old.equals(done)) {
                        delete(old);
                    }
                }
            }
        } catch (IOException e) {
            throw new PregelException("cannot complete checkpoint " + state.superstep() + " in " + directory + ": " + e.getMessage(), e);
        }
    }

    private static void writeLongs(DataOutputStream out, long[] values) throws IOException {
        out.writeInt(values.length);
        for (long v : values) {
            out.writeLong(v);
        }
    }

    private static long[] readLongs(DataInputStream in) throws IOException {
        long[] values = new long[in.readInt()];
        for (int i = 0; i < values.length; i++) {
            values[i] = in.readLong();
        }
        return values;
    }

    /**
     * The coordinator's part of the complete checkpoint {@code superstep}, refused when its
     * aggregators and globals are not as many as {@code program} declares: another program, or
     * another version of it (PageRank gained a global), whose state would not fit.
     */
    static CoordinatorState readCoordinator(Path directory, long superstep, VertexProgram program) {
        Path file = step(directory, superstep, true).resolve(COORDINATOR);
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            long magic = in.readLong();
            if (magic == MAGIC) {
                throw new PregelException(file + " was written by a pre-release Carafe (it records no messaging); run the job again from"
                        + " the start", null);
            }
            if (magic != COORDINATOR_MAGIC || in.readLong() != superstep) {
                throw new PregelException(file + " is not the coordinator's part of checkpoint " + superstep, null);
            }
            Messaging messaging = Messaging.valueOf(in.readUTF());
            long active = in.readLong();
            long messages = in.readLong();
            long[] aggregates = readLongs(in);
            long[] globals = readLongs(in);
            if (aggregates.length != program.aggregators().size() || globals.length != program.globals()) {
                throw new PregelException("checkpoint " + superstep + " in " + directory + " holds " + aggregates.length + " aggregators and "
                        + globals.length + " globals, but the program declares " + program.aggregators().size() + " and " + program.globals()
                        + ": it was written by another program or another version of it; run the job again from the start", null);
            }
            int n = in.readInt();
            List<PregelJob.Superstep> history = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long index = in.readLong();
                double seconds = in.readDouble();
                long computed = in.readLong();
                long activeThen = in.readLong();
                long sent = in.readLong();
                long bytes = in.readLong();
                int dense = in.readInt();
                double[] values = new double[in.readInt()];
                for (int a = 0; a < values.length; a++) {
                    values[a] = in.readDouble();
                }
                history.add(new PregelJob.Superstep(index, seconds, computed, activeThen, sent, bytes, dense, values));
            }
            return new CoordinatorState(superstep, active, messages, aggregates, globals, history, messaging);
        } catch (IOException e) {
            throw new PregelException("cannot read " + file + " (a checkpoint's coordinator part): " + e.getMessage(), e);
        }
    }

    /**
     * Removes {@code directory} and everything in it (a job's checkpoints once it has ended):
     * best effort, as the job's outcome, not its leftovers, is what the caller reports.
     */
    static void delete(Path directory) {
        if (directory == null || !Files.exists(directory)) {
            return;
        }
        try (Stream<Path> all = Files.walk(directory)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // left behind; the next job has a directory of its own
        }
    }

    /** fsync by path: a file's bytes, or a directory's names, so that what was written or renamed in it survives a crash. */
    private static void sync(Path path) throws IOException {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}

package io.carafe.pregel;

import io.carafe.graph.CarafeGraph;
import io.carafe.graph.EdgeWeights;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.InEdgeLists;
import io.rstore.RStore;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * What one partition's {@link Gather} is built from: every partition's slot count and where
 * its slots start in the gathered array, this partition's vertices as senders (slot,
 * out-degree, the messages a send stands for) and as receivers (in-lists as the slots of
 * their sources, with weights when sends add them). Made from the graph in RStore
 * ({@link #make}: every out-degree read, the in-edges read and renamed, sorted when asked),
 * which costs most of a gathering job's setup at LiveJournal scale, so a job given a
 * directory of plans ({@link PregelJob.Options#gatherPlans}) keeps each there and the next job
 * of the same graph, partitioning and program shape reads it instead ({@link #obtain}).
 *
 * <p>A plan file names what it was made from: the graph as its header identifies it (source
 * size, modification time and import options, or generator; its shape), the partition
 * starts, this partition and the program's shape; and it carries a few vertices' in-lists
 * as the graph had them and a checksum of every byte. A file that differs in any of these,
 * or fails to read, is made again and replaced; it is written to a temporary file and moved
 * into place, so a reader never sees half of one.
 */
record GatherPlan(long[] counts, int[] base, int[] mySlot, int[] outDegree, int[] degree, int[] start, int[] source, EdgeWeights weights) {
    private static final long MAGIC = 0x32304e414c505047L; // "GPPLAN02" little-endian
    private static final int SAMPLES = 8;       // vertices whose in-lists a plan carries as the graph had them
    private static final int SAMPLE_SOURCES = 4; // of each, its first sources
    private static final int BUFFER_BYTES = 1 << 20;
    /** A directory of plans keeps at most this many bytes of them, the most recently used (two LiveJournal-sized graphs' plans of a few shapes and worker counts). */
    static final long KEPT_BYTES = 8L << 30;

    /** What a plan is made from; a plan file holds it and is used only where it is the same. */
    record Key(GraphHeader graph, int[] starts, int index, boolean bothWays, boolean plusWeight, boolean sorted) {
        long[] words() {
            long[] w = new long[11 + starts.length];
            w[0] = GraphHeader.FORMAT_VERSION;
            w[1] = graph.vertexCount();
            w[2] = graph.edgeCount();
            w[3] = graph.sourceBytes();
            w[4] = graph.sourceModifiedMillis();
            w[5] = graph.optionsFingerprint();
            w[6] = (graph.directed() ? 1 : 0) | (graph.weighted() ? 2 : 0) | (long) graph.weightBytes() << 8;
            w[7] = index;
            w[8] = (bothWays ? 1 : 0) | (plusWeight ? 2 : 0) | (sorted ? 4 : 0);
            w[9] = Double.doubleToLongBits(graph.minWeight());
            w[10] = Double.doubleToLongBits(graph.maxWeight());
            for (int i = 0; i < starts.length; i++) {
                w[11 + i] = starts[i];
            }
            return w;
        }

        /** The plan's file name: a hash of the key (the file holds the key itself, compared whole). */
        String fileName() {
            long h = 0x9E3779B97F4A7C15L;
            for (long word : words()) {
                h = Long.rotateLeft(h ^ word, 27) * 0xBF58476D1CE4E5B9L;
            }
            return "gather-" + Long.toHexString(h) + ".plan";
        }
    }

    /**
     * The plan of partition {@code index}: read from {@code directory} where a plan of this
     * key is there and checks out against the graph, else made (and, with a directory, kept
     * there for the next job; a directory that cannot be written to only costs the next job
     * the same work). {@code directory} null: made, not kept.
     */
    static GatherPlan obtain(Path directory, RStore rstore, String graph, Partitioning partitioning, int index, boolean bothWays,
                             boolean plusWeight, boolean sortInLists, GatheredArrays arrays) {
        Obtained obtained = obtainWritingBehind(directory, rstore, graph, partitioning, index, bothWays, plusWeight, sortInLists, arrays);
        obtained.awaitKept(KEEP_WAIT_NANOS);
        return obtained.plan();
    }

    /**
     * As {@link #obtain}, but a plan made here is written on a thread of its own while the
     * job runs (its file is for the next job): the caller ends with {@link Obtained#awaitKept}.
     */
    static Obtained obtainWritingBehind(Path directory, RStore rstore, String graph, Partitioning partitioning, int index, boolean bothWays,
                                        boolean plusWeight, boolean sortInLists, GatheredArrays arrays) {
        GraphHeader header = CarafeGraph.header(rstore, graph);
        Key key = new Key(header, partitioning.starts(), index, bothWays, plusWeight && header.weighted(), sortInLists);
        if (directory == null) {
            return new Obtained(make(rstore, graph, partitioning, key, arrays), null);
        }
        Path file = directory.resolve(key.fileName());
        GatherPlan kept = read(file, key, rstore, graph, partitioning);
        if (kept != null) {
            touch(file);
            return new Obtained(kept, null);
        }
        GatherPlan made = make(rstore, graph, partitioning, key, arrays);
        int[] samples = samples(rstore, graph, partitioning.start(index), made.mySlot().length); // read now: the graph may be gone when the write ends
        Thread writer = Thread.ofPlatform().daemon().name("gather-plan-" + index).start(() -> {
            if (made.write(file, key, samples)) {
                evictBeyond(directory, KEPT_BYTES, file);
            }
        });
        return new Obtained(made, writer);
    }

    /** How long a job's end waits for its plan's file; a disk slower than this leaves the plan unkept, to be made by the next job. */
    static final long KEEP_WAIT_NANOS = TimeUnit.SECONDS.toNanos(120);

    /**
     * A plan, and where it was made with a directory to keep it in, the thread writing its
     * file. Writing a LiveJournal-sized plan (300 MB with weights) took 0.1–0.8 s of a job's
     * setup; behind the job, the disk's share of it runs beside the supersteps.
     */
    record Obtained(GatherPlan plan, Thread writer) {
        /**
         * Waits at most {@code nanos} for the plan's file to be written. Past that the writer is
         * interrupted and leaves the whole plan or no file (then the next job makes the plan
         * again): the job is not held up for a cache. Returns whether nothing is left writing.
         */
        boolean awaitKept(long nanos) {
            if (writer == null) {
                return true;
            }
            boolean interrupted = false;
            long deadline = System.nanoTime() + nanos;
            while (writer.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    writer.interrupt();
                    break;
                }
                try {
                    writer.join(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    interrupted = true; // the caller's interrupt is kept for it; the wait goes on to its bound
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return !writer.isAlive();
        }
    }

    /** A plan read is a plan used: its modification time says when, for {@link #evictBeyond}. */
    private static void touch(Path file) {
        try {
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // a read-only directory keeps its plans as they are
        }
    }

    /**
     * Deletes the least recently used plans of {@code directory}, never {@code keep}, while
     * they take more than {@code bytes}: plans of graphs, worker counts and programs no longer
     * run would otherwise pile up. A plan another job is reading stays readable to it.
     */
    static void evictBeyond(Path directory, long bytes, Path keep) {
        record Plan(Path path, long bytes, long used) {
        }
        List<Plan> plans = new ArrayList<>();
        long total = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "gather-*.plan")) {
            for (Path f : files) {
                BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                plans.add(new Plan(f, a.size(), a.lastModifiedTime().toMillis()));
                total += a.size();
            }
        } catch (IOException e) {
            return; // nothing to evict from a directory that cannot be listed
        }
        plans.sort(Comparator.comparingLong(Plan::used));
        for (Plan p : plans) {
            if (total <= bytes) {
                break;
            }
            if (p.path().equals(keep)) {
                continue;
            }
            try {
                Files.deleteIfExists(p.path());
                total -= p.bytes();
            } catch (IOException e) {
                // another process's eviction, or a read-only file: left
            }
        }
    }

    /**
     * Every vertex's out-degree (the vertex records alone) gives every partition's slots,
     * assigned once a process ({@link Gather.Slots}); this partition's in-edges come from the graph's in-edge sections (built at import),
     * their sources then renamed to slots. No worker reads another's edges. Heard along
     * in- and out-edges ({@code bothWays}: a program that sends to all neighbours of a
     * directed graph), slots go by in- plus out-degree, and each vertex's list holds the
     * sources of its in-edges and the targets of its out-edges. When sends add the edge's
     * weight the in-edges' weights are read too; with {@code sorted} each list is sorted by
     * slot ({@link #sortBySlot}). The slots go into {@code arrays}, which the job's other
     * workers in this process share.
     */
    private static GatherPlan make(RStore rstore, String graph, Partitioning partitioning, Key key, GatheredArrays arrays) {
        int index = key.index();
        int from = partitioning.start(index);
        int size = partitioning.end(index) - from;
        boolean bothWays = key.bothWays();
        Gather.Slots shared = arrays.slots(() -> Gather.Slots.assign(rstore, graph, partitioning, bothWays));
        int[] slotOf = shared.slotOf();
        int[] base = shared.base();
        int[] outDegree = Arrays.copyOfRange(shared.outDegree(), from, from + size);
        int[] degree = outDegree; // heard along out-edges alone: the same
        if (bothWays) {
            degree = CarafeGraph.inDegrees(rstore, graph, from, from + size);
            for (int u = 0; u < size; u++) {
                degree[u] += outDegree[u];
            }
        }
        int[] mySlot = new int[size];
        for (int u = 0; u < size; u++) {
            int slot = slotOf[from + u];
            mySlot[u] = slot < 0 ? -1 : slot - base[index];
        }
        InEdgeLists in = InEdgeLists.read(rstore, graph, from, from + size, key.plusWeight());
        int[] start = in.start();
        int[] source = in.sources();
        if (bothWays) {
            long outEdges = 0;
            for (int d : outDegree) {
                outEdges += d;
            }
            if (source.length + outEdges > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("partition " + index + " has " + (source.length + outEdges) + " in- and out-edges, more than"
                        + " one array holds: use more workers");
            }
            int[] targets = CarafeGraph.outTargets(rstore, graph, from, from + size, (int) outEdges);
            int[] both = new int[source.length + targets.length];
            int[] bothStart = new int[size + 1];
            int at = 0;
            int out = 0;
            for (int u = 0; u < size; u++) {
                bothStart[u] = at;
                int inCount = start[u + 1] - start[u];
                System.arraycopy(source, start[u], both, at, inCount);
                at += inCount;
                System.arraycopy(targets, out, both, at, outDegree[u]);
                at += outDegree[u];
                out += outDegree[u];
            }
            bothStart[size] = at;
            start = bothStart;
            source = both;
        }
        for (int e = 0; e < source.length; e++) {
            source[e] = slotOf[source[e]]; // it has an edge to this partition, so a slot
        }
        EdgeWeights weights = key.plusWeight() ? in.weights() : null; // null on an unweighted graph: every edge weighs 1
        if (key.sorted()) {
            sortBySlot(start, source, weights);
        }
        return new GatherPlan(shared.counts(), base, mySlot, outDegree, degree, start, source, weights);
    }

    /**
     * Sorts each vertex's in-list by slot (weights, when given, move with their slots), so
     * the combine loop's loads of one vertex walk the gathered array forward, the heavy
     * senders' first: PageRank's compute gains more than the sort costs, and so do hybrid
     * jobs whose dense supersteps read every sent in-edge (SSSP, label propagation), once
     * the sort is made once with the plan (docs/measure/notebook.md). Not where a dense
     * superstep stops at a vertex's first sender (BFS). Sums then add in slot order rather
     * than the graph's.
     */
    private static void sortBySlot(int[] start, int[] source, EdgeWeights weight) {
        int vertices = start.length - 1;
        if (weight == null) {
            for (int u = 0; u < vertices; u++) {
                Arrays.sort(source, start[u], start[u + 1]);
            }
            return;
        }
        int longest = 0;
        for (int u = 0; u < vertices; u++) {
            longest = Math.max(longest, start[u + 1] - start[u]);
        }
        long[] keyed = new long[longest]; // the slot in the high half, the edge's place in its list in the low one
        MemorySegment weights = weight.memory();
        boolean floats = weight.weightBytes() == Float.BYTES; // else doubles
        long[] moved = new long[longest]; // the list's weights in their new order, as raw bits
        for (int u = 0; u < vertices; u++) {
            int at = start[u];
            int count = start[u + 1] - at;
            for (int i = 0; i < count; i++) {
                keyed[i] = (long) source[at + i] << 32 | i;
            }
            Arrays.sort(keyed, 0, count);
            // a weight at a time as a typed load and store: a MemorySegment.copy of 4 bytes per edge took most of the sort
            for (int i = 0; i < count; i++) {
                source[at + i] = (int) (keyed[i] >>> 32);
                long e = at + (int) keyed[i];
                moved[i] = floats ? weights.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, e) : weights.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, e);
            }
            for (int i = 0; i < count; i++) {
                if (floats) {
                    weights.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, at + i, (int) moved[i]);
                } else {
                    weights.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, at + i, moved[i]);
                }
            }
        }
    }

    /**
     * A few of the partition's vertices with in-edges, spread over it, each as the graph in
     * RStore has it now: (vertex, in-degree, out-degree, its first {@value #SAMPLE_SOURCES}
     * in-sources or -1). A plan read back must find the same, so a graph loaded again under
     * the same identity but with other edges is never gathered along a stale plan.
     */
    private static int[] samples(RStore rstore, String graph, int from, int size) {
        int[] out = new int[SAMPLES * (3 + SAMPLE_SOURCES)];
        Arrays.fill(out, -1);
        for (int k = 0; k < SAMPLES && size > 0; k++) {
            int v = from + (int) ((long) size * (2 * k + 1) / (2 * SAMPLES));
            InEdgeLists in = InEdgeLists.read(rstore, graph, v, v + 1, false);
            int at = k * (3 + SAMPLE_SOURCES);
            out[at] = v;
            out[at + 1] = in.degree(0);
            out[at + 2] = CarafeGraph.outDegrees(rstore, graph, v, v + 1)[0];
            for (int i = 0; i < SAMPLE_SOURCES && i < in.degree(0); i++) {
                out[at + 3 + i] = in.source(in.first(0) + i);
            }
        }
        return out;
    }

    /**
     * Writes the plan to a temporary file beside {@code file}, then moves it into place;
     * whether it did. A failure leaves no file and is not an error.
     */
    private boolean write(Path file, Key key, int[] samples) {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-" + Thread.currentThread().threadId());
        try {
            Files.createDirectories(file.getParent());
            try (PlanOutput out = new PlanOutput(FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE))) {
                long[] words = key.words();
                out.putLong(MAGIC);
                out.putInt(words.length);
                out.put(MemorySegment.ofArray(words));
                out.put(MemorySegment.ofArray(samples));
                out.putInt(mySlot.length);
                out.putInt(source.length);
                out.put(MemorySegment.ofArray(counts));
                out.put(MemorySegment.ofArray(base));
                out.put(MemorySegment.ofArray(mySlot));
                out.put(MemorySegment.ofArray(outDegree));
                if (key.bothWays()) {
                    out.put(MemorySegment.ofArray(degree));
                }
                out.put(MemorySegment.ofArray(start));
                out.put(MemorySegment.ofArray(source));
                out.putInt(weights == null ? -1 : weights.length());
                if (weights != null) {
                    out.put(weights.memory());
                }
                out.finish();
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
            return true;
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException ignored) {
                // nothing more to do: the next job makes the plan again
            }
            return false;
        }
    }

    /** The plan in {@code file}, or null where there is none, it was made from anything else, or it does not read back whole. */
    private static GatherPlan read(Path file, Key key, RStore rstore, String graph, Partitioning partitioning) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        int index = key.index();
        int from = partitioning.start(index);
        int size = partitioning.end(index) - from;
        int partitions = partitioning.partitions();
        try (PlanInput in = new PlanInput(FileChannel.open(file, StandardOpenOption.READ))) {
            long[] words = key.words();
            if (in.getLong() != MAGIC || in.getInt() != words.length) {
                return null;
            }
            long[] kept = new long[words.length];
            in.get(MemorySegment.ofArray(kept));
            int[] samples = new int[SAMPLES * (3 + SAMPLE_SOURCES)];
            in.get(MemorySegment.ofArray(samples));
            if (!Arrays.equals(kept, words) || in.getInt() != size || !Arrays.equals(samples, samples(rstore, graph, from, size))) {
                return null;
            }
            int count = in.getInt();
            if (count < 0 || 4L * count > in.remaining()) {
                return null; // never allocate past what the file holds
            }
            long[] counts = new long[partitions];
            int[] base = new int[partitions + 1];
            int[] mySlot = new int[size];
            int[] outDegree = new int[size];
            in.get(MemorySegment.ofArray(counts));
            in.get(MemorySegment.ofArray(base));
            in.get(MemorySegment.ofArray(mySlot));
            in.get(MemorySegment.ofArray(outDegree));
            int[] degree = outDegree;
            if (key.bothWays()) {
                degree = new int[size];
                in.get(MemorySegment.ofArray(degree));
            }
            int[] start = new int[size + 1];
            int[] source = new int[count];
            in.get(MemorySegment.ofArray(start));
            in.get(MemorySegment.ofArray(source));
            int weightCount = in.getInt();
            if ((long) weightCount * key.graph().weightBytes() > in.remaining()) {
                return null;
            }
            EdgeWeights weights = null;
            if (weightCount >= 0) {
                weights = EdgeWeights.allocate(weightCount, key.graph().weightBytes());
                in.get(weights.memory());
            }
            if (!in.checksumMatches() || start[size] != count) {
                return null;
            }
            return new GatherPlan(counts, base, mySlot, outDegree, degree, start, source, weights);
        } catch (IOException | RuntimeException e) {
            return null; // unreadable, short or otherwise not a plan: made again
        }
    }

    /** Writes a plan through one buffer, keeping a checksum of what it wrote; {@link #finish} adds the checksum. */
    private static final class PlanOutput implements AutoCloseable {
        private final FileChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.nativeOrder());
        private final MemorySegment memory = MemorySegment.ofBuffer(buffer);
        private final CRC32C crc = new CRC32C();

        PlanOutput(FileChannel channel) {
            this.channel = channel;
        }

        void putLong(long value) throws IOException {
            put(MemorySegment.ofArray(new long[] {value}));
        }

        void putInt(int value) throws IOException {
            put(MemorySegment.ofArray(new int[] {value}));
        }

        /** Every byte of {@code data}, in this machine's order (the magic tells another order apart). */
        void put(MemorySegment data) throws IOException {
            for (long done = 0; done < data.byteSize(); ) {
                if (!buffer.hasRemaining()) {
                    flush();
                }
                long n = Math.min(buffer.remaining(), data.byteSize() - done);
                MemorySegment.copy(data, done, memory, buffer.position(), n);
                buffer.position(buffer.position() + (int) n);
                done += n;
            }
        }

        private void flush() throws IOException {
            buffer.flip();
            crc.update(buffer.duplicate());
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            buffer.clear();
        }

        void finish() throws IOException {
            flush();
            long sum = crc.getValue();
            put(MemorySegment.ofArray(new long[] {sum}));
            buffer.flip();
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            buffer.clear(); // not forced to disk: a plan torn by a crash fails its checksum and is made again
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Reads a plan through one buffer, keeping a checksum of what it read. */
    private static final class PlanInput implements AutoCloseable {
        private final FileChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.nativeOrder());
        private final MemorySegment memory = MemorySegment.ofBuffer(buffer);
        private final CRC32C crc = new CRC32C();

        PlanInput(FileChannel channel) {
            this.channel = channel;
            buffer.limit(0);
        }

        long getLong() throws IOException {
            long[] v = new long[1];
            get(MemorySegment.ofArray(v));
            return v[0];
        }

        int getInt() throws IOException {
            int[] v = new int[1];
            get(MemorySegment.ofArray(v));
            return v[0];
        }

        /** Fills {@code into} from the file; a file that ends first is no plan. */
        void get(MemorySegment into) throws IOException {
            for (long done = 0; done < into.byteSize(); ) {
                if (!buffer.hasRemaining()) {
                    fill();
                }
                long n = Math.min(buffer.remaining(), into.byteSize() - done);
                MemorySegment.copy(memory, buffer.position(), into, done, n);
                crc.update(buffer.slice(buffer.position(), (int) n));
                buffer.position(buffer.position() + (int) n);
                done += n;
            }
        }

        private void fill() throws IOException {
            buffer.clear();
            while (buffer.position() == 0) {
                if (channel.read(buffer) < 0) {
                    throw new IOException("the plan file ends early");
                }
            }
            buffer.flip();
        }

        /** Bytes of the file not read yet. */
        long remaining() throws IOException {
            return channel.size() - channel.position() + buffer.remaining();
        }

        /** Whether the checksum that follows matches every byte read, and nothing follows it. */
        boolean checksumMatches() throws IOException {
            long expected = crc.getValue();
            long[] kept = new long[1];
            get(MemorySegment.ofArray(kept));
            return kept[0] == expected && !buffer.hasRemaining() && channel.position() == channel.size();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}

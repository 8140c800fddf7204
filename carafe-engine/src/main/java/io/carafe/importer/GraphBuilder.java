package io.carafe.importer;

import io.carafe.graph.EdgeLayout;
import io.carafe.graph.GraphHeader;
import io.carafe.graph.VertexLayout;
import io.carafe.progress.Progress;
import it.unimi.dsi.fastutil.Swapper;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntComparator;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongArrays;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Collects edges and builds the compressed sparse rows of a graph: dense internal ids in
 * the order of the original ids, each adjacency list sorted by target, parallel edges
 * collapsed (keeping the smallest weight) unless asked to keep them. Writes the result
 * as a graph file (header, vertex records, targets, weights).
 *
 * <p>While every id fits in an int (as in SNAP's files) edges are kept with their raw ids
 * and mapped to dense ids at the end through a rank array: a hash lookup per endpoint in
 * the parse loop is a cache miss each and halved the parse rate. Larger ids switch to a
 * hash map from original to provisional id.
 */
public final class GraphBuilder implements EdgeListParser.Sink {
    /** Largest raw id mapped through a dense rank array (an int per possible id: 1 GiB at most). */
    private static final long DENSE_RANK_LIMIT = 1L << 28;
    /** RStore's default chunk size: large sections start on a multiple of it (see {@link #sectionAt}). */
    static final long SECTION_ALIGNMENT = 16L << 20;

    private final ImportOptions options;
    private final ImportReport report;
    private final Long2IntOpenHashMap provisional = new Long2IntOpenHashMap();
    private final LongArrayList originals = new LongArrayList();
    private final IntArrayList sources = new IntArrayList();
    private final IntArrayList targets = new IntArrayList();
    private final IntArrayList declared = new IntArrayList(); // raw mode: vertices named without edges
    private boolean raw = true;
    private int maxRaw = -1;
    private final DoubleArrayList weights;
    private final double weightAdd;
    private final boolean weightAbs;
    private final boolean randomWeights;

    public GraphBuilder(ImportOptions options, ImportReport report) {
        this.options = options;
        this.report = report;
        this.weights = options.weighted() ? new DoubleArrayList() : null;
        this.provisional.defaultReturnValue(-1);
        this.weightAbs = options.weightMap().equals("abs");
        this.weightAdd = options.weightMap().startsWith("add:") ? Double.parseDouble(options.weightMap().substring(4)) : 0;
        this.randomWeights = options.weights().equals("random");
    }

    /** True while no vertex has been seen. */
    public boolean isEmpty() {
        return raw ? maxRaw < 0 : originals.isEmpty();
    }

    /** Adds a vertex that may have no edges (from a vertex file or a generator). */
    public void vertex(long original) {
        if (raw && original > Integer.MAX_VALUE) {
            leaveRawMode();
        }
        if (raw) {
            declared.add((int) original);
            maxRaw = Math.max(maxRaw, (int) original);
        } else {
            idOf(original);
        }
    }

    @Override
    public void edge(long source, long target, double weight) {
        if (target < 0) { // a vertex file line
            vertex(source);
            return;
        }
        if (source == target) {
            report.selfLoops++;
            if (options.dropSelfLoops()) { // the edge goes, its vertex stays
                vertex(source);
                return;
            }
        }
        if (sources.size() == Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("more than 2^31 edges: graphs of this size are not supported yet");
        }
        if (raw && (source > Integer.MAX_VALUE || target > Integer.MAX_VALUE)) {
            leaveRawMode();
        }
        if (raw) {
            sources.add((int) source);
            targets.add((int) target);
            maxRaw = Math.max(maxRaw, (int) Math.max(source, target));
        } else {
            sources.add(idOf(source));
            targets.add(idOf(target));
        }
        if (weights != null) {
            weights.add(randomWeights ? randomWeight(options.seed(), options.undirected(), source, target)
                    : (weightAbs ? Math.abs(weight) : weight + weightAdd));
        }
    }

    /**
     * Deterministic integer weight in [1, 255] of the edge between two original ids; the same
     * in both directions of an undirected one. A function of the edge alone, so parallel edges
     * weigh the same and weights can be drawn for a topology built without them.
     */
    static double randomWeight(long seed, boolean undirected, long source, long target) {
        long a = undirected ? Math.min(source, target) : source;
        long b = undirected ? Math.max(source, target) : target;
        long h = seed * 0x9E3779B97F4A7C15L + a;
        h = (h ^ (h >>> 31)) * 0xBF58476D1CE4E5B9L + b;
        h = (h ^ (h >>> 30)) * 0x94D049BB133111EBL;
        h ^= h >>> 31;
        return 1 + Math.floorMod(h, 255);
    }

    /** Re-labels everything kept so far with provisional ids from the hash map; from now on edges are mapped as they come. */
    private void leaveRawMode() {
        raw = false;
        int[] src = sources.elements();
        int[] dst = targets.elements();
        for (int i = 0; i < declared.size(); i++) {
            idOf(declared.getInt(i));
        }
        for (int e = 0; e < sources.size(); e++) {
            src[e] = idOf(src[e]);
            dst[e] = idOf(dst[e]);
        }
        declared.clear();
        declared.trim();
    }

    private int idOf(long original) {
        int id = provisional.get(original);
        if (id < 0) {
            id = originals.size();
            provisional.put(original, id);
            originals.add(original);
        }
        return id;
    }

    /** Builds the graph and writes it to {@code file} (atomically: a temporary file, then a rename). */
    public void write(Path file, long sourceBytes, long sourceModifiedMillis) {
        write(file, sourceBytes, sourceModifiedMillis, null);
    }

    /** The steps of {@link #write}, for its progress. */
    static final int STEPS = 5;

    /** As {@link #write(Path, long, long)}, reporting each of its {@link #STEPS} steps to {@code progress} (or null). */
    public void write(Path file, long sourceBytes, long sourceModifiedMillis, Progress progress) {
        long start = System.nanoTime();
        if (raw && maxRaw >= DENSE_RANK_LIMIT) {
            leaveRawMode();
        }
        // finalId maps what the edge arrays hold (raw ids, or provisional ids) to dense ids in original-id order
        long[] sortedOriginals;
        int[] finalId;
        if (raw) {
            finalId = new int[maxRaw + 1];
            for (int i = 0; i < declared.size(); i++) {
                finalId[declared.getInt(i)] = 1;
            }
            int[] ids = sources.elements();
            for (int e = 0; e < sources.size(); e++) {
                finalId[ids[e]] = 1;
            }
            ids = targets.elements();
            for (int e = 0; e < targets.size(); e++) {
                finalId[ids[e]] = 1;
            }
            int count = 0;
            for (int id = 0; id <= maxRaw; id++) {
                count += finalId[id];
            }
            sortedOriginals = new long[count];
            int next = 0;
            for (int id = 0; id <= maxRaw; id++) {
                if (finalId[id] != 0) {
                    sortedOriginals[next] = id;
                    finalId[id] = next++;
                } else {
                    finalId[id] = -1;
                }
            }
        } else {
            sortedOriginals = originals.toLongArray();
            LongArrays.radixSort(sortedOriginals);
            finalId = new int[originals.size()];
            for (int p = 0; p < finalId.length; p++) {
                finalId[p] = Arrays.binarySearch(sortedOriginals, originals.getLong(p));
            }
        }
        int n = sortedOriginals.length;
        step(progress, 1, "vertices numbered");
        int[] src = sources.elements();
        int[] dst = targets.elements();
        double[] w = weights == null ? null : weights.elements();
        int raw = sources.size();

        long[] offsets = new long[n + 1];
        for (int e = 0; e < raw; e++) {
            offsets[finalId[src[e]] + 1]++;
            if (options.undirected() && src[e] != dst[e]) {
                offsets[finalId[dst[e]] + 1]++;
            }
        }
        for (int v = 0; v < n; v++) {
            offsets[v + 1] += offsets[v];
        }
        long slots = offsets[n];
        if (slots > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("more than 2^31 stored edges: graphs of this size are not supported yet");
        }
        step(progress, 2, "degrees counted");
        int[] adjacency = new int[(int) slots];
        double[] adjacencyWeights = w == null ? null : new double[(int) slots];
        long[] next = Arrays.copyOf(offsets, n);
        for (int e = 0; e < raw; e++) {
            int u = finalId[src[e]];
            int v = finalId[dst[e]];
            int at = (int) next[u]++;
            adjacency[at] = v;
            if (adjacencyWeights != null) {
                adjacencyWeights[at] = w[e];
            }
            if (options.undirected() && u != v) {
                at = (int) next[v]++;
                adjacency[at] = u;
                if (adjacencyWeights != null) {
                    adjacencyWeights[at] = w[e];
                }
            }
        }
        sources.clear();
        sources.trim();
        targets.clear();
        targets.trim();
        step(progress, 3, "edges placed");

        // sort each list, then collapse parallel edges in place
        AdjacencySorter sorter = new AdjacencySorter(adjacency, adjacencyWeights);
        int write = 0;
        for (int v = 0; v < n; v++) {
            int from = (int) offsets[v];
            int to = (int) offsets[v + 1];
            sorter.sort(from, to);
            offsets[v] = write;
            for (int i = from; i < to; i++) {
                if (!options.keepDuplicates() && i > from && adjacency[i] == adjacency[i - 1]) {
                    report.duplicates++;
                    continue;
                }
                adjacency[write] = adjacency[i];
                if (adjacencyWeights != null) {
                    adjacencyWeights[write] = adjacencyWeights[i];
                }
                write++;
            }
        }
        offsets[n] = write;

        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        if (adjacencyWeights != null) {
            for (int i = 0; i < write; i++) {
                min = Math.min(min, adjacencyWeights[i]);
                max = Math.max(max, adjacencyWeights[i]);
            }
        } else if (write > 0) {
            min = 1;
            max = 1;
        }
        report.vertices = n;
        report.edges = write;
        int weightBytes = adjacencyWeights == null ? EdgeLayout.DOUBLE_WEIGHT_BYTES : EdgeLayout.weightBytes(adjacencyWeights, write);
        GraphHeader header = new GraphHeader(GraphHeader.COMPLETE, !options.undirected(), adjacencyWeights != null, weightBytes, n, write,
                write == 0 ? 0 : min, write == 0 ? 0 : max, 0, 0, -1, sourceBytes, sourceModifiedMillis, options.fingerprint(), -1, -1, -1);
        step(progress, 4, "lists sorted");
        writeFile(file, header, sortedOriginals, offsets, adjacency, adjacencyWeights);
        step(progress, 5, "written");
        report.buildSeconds = (System.nanoTime() - start) / 1e9;
    }

    private static void step(Progress progress, int done, String what) {
        if (progress != null) {
            progress.update(done, what);
        }
    }

    /**
     * Writes the graph file: header, vertex records, targets, weights and, for a directed
     * graph, its in-edges (built here from the out-edges: a counting sort by target, so each
     * target's sources come out ascending).
     */
    static void writeFile(Path file, GraphHeader header, long[] originalIds, long[] offsets, int[] adjacency, double[] adjacencyWeights) {
        long n = header.vertexCount();
        long m = header.edgeCount();
        InEdgeArrays in = header.directed() ? InEdgeArrays.of((int) n, offsets, adjacency, adjacencyWeights) : null;
        long[] at = new long[GraphHeader.Section.values().length];
        long size = GraphHeader.BYTES;
        for (GraphHeader.Section section : GraphHeader.Section.values()) {
            long bytes = header.bytes(section);
            at[section.ordinal()] = header.has(section) ? sectionAt(size, bytes) : -1;
            size = header.has(section) ? at[section.ordinal()] + bytes : size;
        }
        GraphHeader placed = header.withSections(at);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
                 Arena arena = Arena.ofConfined()) {
                MemorySegment out = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                placed.writeTo(out);
                MemorySegment records = out.asSlice(placed.verticesAt(), header.verticesBytes());
                for (int v = 0; v < n; v++) {
                    VertexLayout.write(records, v, originalIds[v], offsets[v], (int) (offsets[v + 1] - offsets[v]));
                }
                MemorySegment.copy(adjacency, 0, out, ValueLayout.JAVA_INT_UNALIGNED, placed.edgesAt(), (int) m);
                if (header.weighted()) {
                    EdgeLayout.writeWeights(adjacencyWeights, (int) m, out, placed.weightsAt(), header.weightBytes());
                }
                if (in != null) {
                    MemorySegment.copy(in.offsets, 0, out, ValueLayout.JAVA_LONG_UNALIGNED, placed.inOffsetsAt(), (int) n + 1);
                    MemorySegment.copy(in.sources, 0, out, ValueLayout.JAVA_INT_UNALIGNED, placed.inSourcesAt(), (int) m);
                    if (in.weights != null) {
                        EdgeLayout.writeWeights(in.weights, (int) m, out, placed.inWeightsAt(), header.weightBytes());
                    }
                }
                out.force();
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | InternalError e) {
            // InternalError: a write to the mapped file faulted, which is how a full disk shows through a mapping
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the original failure is what matters
            }
            String why = e instanceof InternalError ? "a write to it failed (is the disk full?)" : String.valueOf(e.getMessage());
            throw new UncheckedIOException(new IOException("cannot write the graph cache " + file + ": " + why
                    + "; free space there or pick another cache directory", e));
        }
    }

    /**
     * Where a section starts: sections of a chunk or more on a multiple of
     * {@link #SECTION_ALIGNMENT}, so an embedded cluster can map their whole chunks from the
     * file instead of copying them ({@link io.rstore.Namespace#allocFromFile}); the gap
     * before them is a hole in the file, not disk.
     */
    private static long sectionAt(long at, long bytes) {
        return align(at, bytes >= SECTION_ALIGNMENT ? SECTION_ALIGNMENT : 8);
    }

    private static long align(long at, long to) {
        return (at + to - 1) / to * to;
    }

    /** A directed graph's in-edges, transposed from its out-edges. */
    private record InEdgeArrays(long[] offsets, int[] sources, double[] weights) {
        static InEdgeArrays of(int n, long[] offsets, int[] targets, double[] weights) {
            int m = (int) offsets[n];
            long[] inOffsets = new long[n + 1];
            for (int e = 0; e < m; e++) {
                inOffsets[targets[e] + 1]++;
            }
            for (int v = 0; v < n; v++) {
                inOffsets[v + 1] += inOffsets[v];
            }
            long[] next = Arrays.copyOf(inOffsets, n);
            int[] sources = new int[m];
            double[] inWeights = weights == null ? null : new double[m];
            for (int v = 0; v < n; v++) {
                for (int e = (int) offsets[v], end = (int) offsets[v + 1]; e < end; e++) {
                    int at = (int) next[targets[e]]++;
                    sources[at] = v;
                    if (inWeights != null) {
                        inWeights[at] = weights[e];
                    }
                }
            }
            return new InEdgeArrays(inOffsets, sources, inWeights);
        }
    }

    /** Sorts an adjacency range by target, then weight, moving weights along; one instance for all vertices. */
    private static final class AdjacencySorter implements IntComparator, Swapper {
        private final int[] targets;
        private final double[] weights;

        AdjacencySorter(int[] targets, double[] weights) {
            this.targets = targets;
            this.weights = weights;
        }

        void sort(int from, int to) {
            if (to - from < 2) {
                return;
            }
            if (weights == null) {
                Arrays.sort(targets, from, to);
            } else {
                it.unimi.dsi.fastutil.Arrays.quickSort(from, to, this, this);
            }
        }

        @Override
        public int compare(int a, int b) {
            int c = Integer.compare(targets[a], targets[b]);
            return c != 0 ? c : Double.compare(weights[a], weights[b]);
        }

        @Override
        public void swap(int a, int b) {
            int t = targets[a];
            targets[a] = targets[b];
            targets[b] = t;
            double w = weights[a];
            weights[a] = weights[b];
            weights[b] = w;
        }
    }
}

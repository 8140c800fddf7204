package io.carafe.graph;

import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;

import java.lang.foreign.MemorySegment;

/**
 * Scans a range of vertices and all their edges in large sequential reads (windows of
 * {@link #WINDOW_BYTES}), as a partition worker reads its partition. {@link #nextVertex()}
 * moves to the next vertex (-1 at the end); {@link #nextInt()} and {@link #weight()} walk
 * its edges. Allocates nothing per vertex or edge. Over mappings of the whole range (the
 * online API's graph) it reads each window into them; a {@link #windows windowed} scan maps
 * one window of records and one of edges at a time instead, and maps the next as it moves on,
 * so it holds {@link #WINDOW_BYTES} of each however large its range (a partition worker's).
 */
public final class SequentialEdgeIterator implements AutoCloseable {
    public static final long WINDOW_BYTES = 4L << 20;

    private Mapping records;
    private Mapping targets;
    private Mapping weights;
    private long recordBase; // vertex whose record is at local offset 0
    private long edgeBase;   // edge at local offset 0
    private MemorySegment recordBytes;
    private MemorySegment targetBytes;
    private MemorySegment weightBytes;
    // a windowed scan's arrays, mapped a window at a time; null over whole mappings
    private final RAddress recordSource;
    private final RAddress targetSource;
    private final RAddress weightSource;
    // and their chunks' own bytes, where the client reaches them (DirectChunks): a window is then the rest of a chunk, mapped once
    private final DirectChunks recordChunks;
    private final DirectChunks targetChunks;
    private final DirectChunks weightChunks;
    private MemorySegment direct; // what directItems found: a chunk's bytes, and where in them the item asked about is
    private long directAt;
    private final long lastEdge; // a windowed scan's end of its range's edges
    private int recordsReadFrom;
    private final int weightSize; // bytes a weight takes
    private final Batch batch = new Batch();
    private final int from;
    private final int to;
    private int vertex;
    private int recordsReadUpTo;
    private long edge;
    private long edgeEnd;
    private long edgesReadFrom;
    private long edgesReadUpTo;
    private long current = -1;
    private final long[] windowsRead; // read once: which windows of edges are in local memory; else null
    private final long windowBytes;
    private final long windowEdges;
    private final int windowRecords;
    /** A windowed scan reads edges sparsely: it maps a vertex's edges, at least 1/{@value #SPARSE_PARTS} of a window, not a window. */
    private boolean sparse;
    private long lastEdgeRead = -1; // the last edge a vertex before the current one read
    private static final int SPARSE_PARTS = 256;
    private static final int WINDOW_FLAGS = MapFlags.READ_ONLY | MapFlags.PREFETCH | MapFlags.DIRECT;

    SequentialEdgeIterator(CarafeGraph graph, int from, int to) {
        this(graph.vertexRecords(), 0, graph.edgeTargets(), graph.edgeWeights(), graph.header().weightBytes(), 0, from, to, graph.vertexCount(),
                false, WINDOW_BYTES);
    }

    /**
     * Over mappings of part of the arrays: {@code records} starts at vertex
     * {@code recordBase}'s record, {@code targets} and {@code weights} (of
     * {@code weightBytes} each) at edge {@code edgeBase}. {@code readOnce}: the graph does not
     * change while this iterator lives, so what it read stays valid in the mappings' local
     * memory and a restart reads nothing again. Edges are read {@code windowBytes} of
     * targets at a time ({@link #WINDOW_BYTES}; tests see many windows on a small graph).
     */
    SequentialEdgeIterator(Mapping records, long recordBase, Mapping targets, Mapping weights, int weightBytes, long edgeBase, int from, int to,
                           long vertexCount, boolean readOnce, long windowBytes) {
        if (from < 0 || to > vertexCount || from > to) {
            throw new IndexOutOfBoundsException("vertex range [" + from + ", " + to + ") is not within 0.." + vertexCount);
        }
        this.records = records;
        this.targets = targets;
        this.weights = weights;
        this.recordBase = recordBase;
        this.edgeBase = edgeBase;
        this.recordBytes = records.segment();
        this.targetBytes = targets.segment();
        this.weightBytes = weights == null ? null : weights.segment();
        this.weightSize = weightBytes;
        this.from = from;
        this.to = to;
        this.vertex = from - 1;
        this.recordsReadUpTo = from;
        this.recordsReadFrom = from;
        this.windowBytes = windowBytes;
        this.windowEdges = windowBytes / EdgeLayout.TARGET_BYTES;
        this.windowRecords = (int) (windowBytes / VertexLayout.BYTES);
        this.windowsRead = readOnce ? new long[(int) ((targets.length() / EdgeLayout.TARGET_BYTES / windowEdges + 64) >>> 6)] : null;
        this.recordSource = null;
        this.targetSource = null;
        this.weightSource = null;
        this.recordChunks = null;
        this.targetChunks = null;
        this.weightChunks = null;
        this.lastEdge = -1;
    }

    private SequentialEdgeIterator(RAddress records, RAddress targets, RAddress weights, int weightBytes, int from, int to, long lastEdge,
                                   long windowBytes, boolean direct) {
        this.recordSource = records;
        this.targetSource = targets;
        this.weightSource = weights;
        this.recordChunks = direct ? new DirectChunks(records) : null;
        this.targetChunks = direct ? new DirectChunks(targets) : null;
        this.weightChunks = direct && weights != null ? new DirectChunks(weights) : null;
        this.weightSize = weightBytes;
        this.from = from;
        this.to = to;
        this.lastEdge = lastEdge;
        this.vertex = from - 1;
        this.recordsReadFrom = from;
        this.recordsReadUpTo = from; // nothing mapped yet
        this.windowBytes = windowBytes;
        this.windowEdges = windowBytes / EdgeLayout.TARGET_BYTES;
        this.windowRecords = (int) (windowBytes / VertexLayout.BYTES);
        this.windowsRead = null;
    }

    /**
     * A scan of vertices {@code [from, to)} of a graph (its records, targets and, if not
     * null, weights of {@code weightBytes} each) that maps one window of records and one of
     * edges at a time, each at most {@code windowBytes} of targets or records, ending at a
     * multiple of {@code windowBytes} in the namespace's address space so that it lies within
     * one chunk. Where the client reaches the servers' memory (in-process servers, shm) and
     * {@code direct} allows, a window is instead the rest of a chunk, the graph's own bytes
     * ({@link DirectChunks}), each chunk mapped the first time and kept until {@link #close}:
     * nothing read or held, and no call to the master as the scan moves on (a superstep of
     * WCC whose few computing vertices are spread over the range mapped a thousand windows a
     * worker). Elsewhere windows are {@link MapFlags#DIRECT} too, and read whole as they are
     * mapped, two windows of local memory (three with weights) whatever the range, and a
     * restart reads the range again. Close it to give the windows back.
     */
    static SequentialEdgeIterator windows(RAddress records, RAddress targets, RAddress weights, int weightBytes, int from, int to,
                                          long lastEdge, long windowBytes, boolean direct) {
        return new SequentialEdgeIterator(records, targets, weights, weightBytes, from, to, lastEdge, windowBytes, direct);
    }

    /** Moves to the next vertex of the range and returns its id, or -1 after the last. */
    public int nextVertex() {
        if (current >= 0) {
            lastEdgeRead = edgeBase + current;
        }
        vertex++;
        if (vertex >= to) {
            return -1;
        }
        if (vertex >= recordsReadUpTo || vertex < recordsReadFrom) {
            readRecords();
        }
        edge = VertexLayout.firstEdge(recordBytes, vertex - recordBase);
        edgeEnd = edge + VertexLayout.degree(recordBytes, vertex - recordBase);
        current = -1;
        return vertex;
    }

    public long originalId() {
        return VertexLayout.originalId(recordBytes, vertex - recordBase);
    }

    public int degree() {
        return VertexLayout.degree(recordBytes, vertex - recordBase);
    }

    /** The current vertex's next target, or -1. */
    public int nextInt() {
        if (edge >= edgeEnd) {
            return -1;
        }
        if (edge >= edgesReadUpTo || edge < edgesReadFrom) {
            fill();
        }
        current = edge++ - edgeBase;
        return EdgeLayout.target(targetBytes, current);
    }

    /** Weight of the edge last returned by {@link #nextInt()} (1 on an unweighted graph). */
    public double weight() {
        return weightBytes == null ? 1.0 : EdgeLayout.weight(weightBytes, current, weightSize);
    }

    /** The current vertex (from - 1 before the first {@link #nextVertex()}). */
    public int vertex() {
        return vertex;
    }

    /** Walks the current vertex's edges again from its first. */
    public void rewindEdges() {
        edge = VertexLayout.firstEdge(recordBytes, vertex - recordBase);
        current = -1;
    }

    /** Starts the range again (the next {@link #nextVertex()} returns its first vertex); reads again from RStore unless it reads once. */
    public void restart() {
        vertex = from - 1;
        current = -1;
        if (recordSource != null) {
            return; // the windows mapped stay good: a graph does not change while it is scanned
        }
        if (windowsRead == null) {
            recordsReadUpTo = from; // records are read from the first on, so what stays read is [from, recordsReadUpTo)
        }
        edgesReadFrom = 0;
        edgesReadUpTo = 0;
    }

    /** Makes the window of records holding the current vertex readable: read into the mapping, or a window mapped. */
    private void readRecords() {
        int n = Math.min(to - vertex, windowRecords);
        if (recordSource == null) {
            records.read(VertexLayout.offset(vertex - recordBase), n * VertexLayout.BYTES);
        } else {
            if (records != null) {
                records.close();
            }
            records = null; // mapped anew below; a failed map leaves nothing to close twice
            long inChunk = directItems(recordChunks, VertexLayout.offset(vertex), VertexLayout.BYTES);
            if (inChunk > 0) {
                n = (int) Math.min(to - vertex, inChunk);
                recordBytes = direct.asSlice(directAt);
            } else {
                n = (int) Math.min(n, Math.max(1, beforeBoundary(recordSource, vertex, VertexLayout.BYTES)));
                records = recordSource.map(VertexLayout.offset(vertex), (long) n * VertexLayout.BYTES, WINDOW_FLAGS);
                recordBytes = records.segment();
            }
            recordBase = vertex;
            recordsReadFrom = vertex;
        }
        recordsReadUpTo = vertex + n;
    }

    /**
     * Items of {@code itemBytes} from the array's byte {@code at} on that lie in the chunk
     * holding it, the chunk's own bytes then in {@link #direct} from {@link #directAt}; 0
     * when the scan maps windows, the client does not reach that chunk directly, or the item
     * at {@code at} crosses the chunk's end.
     */
    private long directItems(DirectChunks chunks, long at, long itemBytes) {
        if (chunks == null) {
            return 0;
        }
        int c = chunks.chunkOf(at);
        direct = chunks.direct(c);
        directAt = at - chunks.chunkStart(c);
        return direct == null ? 0 : (chunks.chunkEnd(c) - at) / itemBytes;
    }

    /** Makes the window of edges holding the current edge the current window, reading it unless it was read once already. */
    private void fill() {
        if (targetSource != null) {
            mapEdges();
            return;
        }
        long window = (edge - edgeBase) / windowEdges;
        long local = window * windowEdges;
        long n = Math.min(windowEdges, targets.length() / EdgeLayout.TARGET_BYTES - local);
        if (windowsRead == null || (windowsRead[(int) (window >>> 6)] & 1L << window) == 0) {
            batch.read(targets, local * EdgeLayout.TARGET_BYTES, n * EdgeLayout.TARGET_BYTES);
            if (weights != null) {
                batch.read(weights, local * weightSize, n * weightSize);
            }
            batch.join();
            if (windowsRead != null) {
                windowsRead[(int) (window >>> 6)] |= 1L << window;
            }
        }
        edgesReadFrom = edgeBase + local;
        edgesReadUpTo = edgesReadFrom + n;
    }

    /**
     * A windowed scan: maps the edges from the current edge on (and their weights), closing
     * the last window. A whole window, unless the scan reads sparsely: it passed more than
     * 1/{@value #SPARSE_PARTS} of a window's edges unread since the last edge it read (a
     * superstep's few computing vertices, or a frontier). Then it maps the current vertex's
     * edges and a little more, so that a few vertices spread over the range do not each
     * read a window.
     */
    private void mapEdges() {
        closeEdges();
        long inChunk = directItems(targetChunks, edge * EdgeLayout.TARGET_BYTES, EdgeLayout.TARGET_BYTES);
        if (inChunk > 0) {
            MemorySegment targetChunk = direct.asSlice(directAt);
            if (weightSource != null) {
                inChunk = Math.min(inChunk, directItems(weightChunks, edge * weightSize, weightSize));
            }
            if (inChunk > 0) {
                targetBytes = targetChunk;
                weightBytes = weightSource != null ? direct.asSlice(directAt) : null;
                edgeBase = edge;
                edgesReadFrom = edge;
                edgesReadUpTo = edge + Math.min(inChunk, lastEdge - edge);
                return;
            }
        }
        long skipped = current >= 0 ? 0 : edge - lastEdgeRead - 1; // negative after a restart: the pace so far holds
        if (skipped >= 0) {
            sparse = skipped > windowEdges / SPARSE_PARTS;
        }
        long wanted = sparse ? Math.clamp(edgeEnd - edge, windowEdges / SPARSE_PARTS, windowEdges) : windowEdges;
        long cut = beforeBoundary(targetSource, edge, EdgeLayout.TARGET_BYTES);
        if (weightSource != null) {
            cut = Math.min(cut, beforeBoundary(weightSource, edge, weightSize));
        }
        if (cut > 0) { // else an edge straddles the boundary: this window is copied
            wanted = Math.min(wanted, cut);
        }
        long n = Math.min(wanted, lastEdge - edge);
        targets = targetSource.map(edge * EdgeLayout.TARGET_BYTES, n * EdgeLayout.TARGET_BYTES, WINDOW_FLAGS);
        targetBytes = targets.segment();
        if (weightSource != null) {
            weights = weightSource.map(edge * weightSize, n * weightSize, WINDOW_FLAGS);
            weightBytes = weights.segment();
        }
        edgeBase = edge;
        edgesReadFrom = edge;
        edgesReadUpTo = edge + n;
    }

    /**
     * Items of {@code itemBytes} from item {@code index} of {@code source} on that end before
     * the next multiple of the window size in the namespace's address space, which chunk
     * boundaries are too (chunks of a multiple of the window's size); 0 when the item at
     * {@code index} straddles it.
     */
    private long beforeBoundary(RAddress source, long index, long itemBytes) {
        long at = source.address() + index * itemBytes;
        return (windowBytes - Math.floorMod(at, windowBytes)) / itemBytes;
    }

    private void closeEdges() {
        Mapping t = targets;
        Mapping w = weights;
        targets = null;
        weights = null;
        edgesReadUpTo = edgesReadFrom; // nothing readable until mapped again
        if (t != null) {
            t.close();
        }
        if (w != null) {
            w.close();
        }
    }

    /** Gives a windowed scan's windows back; over whole mappings nothing (their owner closes them). */
    @Override
    public void close() {
        if (recordSource == null) {
            return;
        }
        closeEdges();
        if (records != null) {
            records.close();
            records = null;
        }
        recordsReadUpTo = recordsReadFrom; // nothing mapped
        for (DirectChunks chunks : new DirectChunks[] {recordChunks, targetChunks, weightChunks}) {
            if (chunks != null) {
                chunks.close();
            }
        }
    }
}

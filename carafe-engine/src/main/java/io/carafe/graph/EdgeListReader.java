package io.carafe.graph;

import io.rstore.Batch;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.lang.foreign.MemorySegment;

/**
 * Reads the out-edge lists of a few chosen vertices of a partition, a window of the edge
 * array at a time: a worker whose vertices send along their edges now and then (a sparse
 * superstep) reads what its senders need and no more, into local memory of one window,
 * instead of mapping all of its partition's edges and weights for a superstep that reads
 * a few of them (faulting that memory in was most of a job's setup).
 *
 * <p>{@link #read} finds the window that holds the next lists (targets, and weights when
 * asked for) and returns how many vertices it covered; {@link #target} and {@link #weight}
 * then give their edges, by the edge's index in the partition. Where the client reaches the
 * servers' memory (in-process servers, shm), a window is the rest of a chunk, the graph's
 * own bytes ({@link DirectChunks}), mapped once for the job: nothing is read, and a sparse
 * superstep no longer asks the master for a mapping of every window and back (0.1-0.15 ms
 * each, 14-33 windows a superstep at LiveJournal scale). Elsewhere, and for a list that
 * crosses a chunk, the window is mapped for the read and only the lists are read, all in
 * flight: at most {@link #WINDOW_EDGES} edges (unless one list is longer), ending at a
 * multiple of that many edges' bytes in the namespace's address space; its mappings come
 * from the client's local arenas and are reused, never faulted in again. Allocates nothing
 * per vertex or edge.
 */
public final class EdgeListReader implements AutoCloseable {
    /**
     * Edges a window spans: 4 MiB of targets and 4 or 8 MiB of weights, blocks of the client's
     * local arenas, faulted in when first used; larger windows cost more to fault in than
     * their fewer mappings save (docs/measure/notebook.md).
     */
    static final long WINDOW_EDGES = 1L << 20;
    /** Lists at most this many edges apart are read as one (1 KiB of targets): fewer operations for a few bytes more. */
    private static final long MERGE_GAP_EDGES = 256;
    private static final int WINDOW_FLAGS = MapFlags.READ_ONLY | MapFlags.DIRECT;

    private final RAddress targets;
    private final RAddress weights; // null: no weights asked for, or an unweighted graph (weight 1)
    private final long firstEdge;   // the partition's first edge in the graph's edge array
    private final long[] edgeStart; // local vertex u's edges are the partition's [edgeStart[u], edgeStart[u + 1])
    private final long windowEdges;
    private final int weightBytes; // bytes a weight takes
    private final Batch batch = new Batch();
    private final DirectChunks targetChunks; // null: windows are always mapped (tests)
    private final DirectChunks weightChunks; // null without weights or direct chunks
    private Mapping targetWindow;
    private Mapping weightWindow;
    private MemorySegment targetBytes;
    private MemorySegment weightMemory;
    private long targetsFrom; // the partition's edge at targetBytes' index 0 (negative where the chunk starts before the partition)
    private long weightsFrom; // likewise for weightMemory

    /**
     * For the partition of graph {@code graph} that starts at vertex {@code from}, whose local
     * vertex u has the partition's edges {@code [edgeStart[u], edgeStart[u + 1])};
     * {@code withWeights}: read the weights too (on a weighted graph).
     */
    public EdgeListReader(RStore rstore, String graph, int from, long[] edgeStart, boolean withWeights) {
        this(rstore, graph, from, edgeStart, withWeights, WINDOW_EDGES, true);
    }

    /**
     * With mapped windows of {@code windowEdges}: tests see many windows on a small graph;
     * {@code direct} false maps every window, as a client that reaches no server's memory does.
     */
    EdgeListReader(RStore rstore, String graph, int from, long[] edgeStart, boolean withWeights, long windowEdges, boolean direct) {
        GraphHeader header = CarafeGraph.readHeader(rstore, graph);
        this.targets = rstore.joinNamespace(CarafeGraph.namespace(graph, GraphHeader.Section.EDGES.part())).raddress(header.edgesAt());
        this.weights = withWeights && header.weighted()
                ? rstore.joinNamespace(CarafeGraph.namespace(graph, GraphHeader.Section.WEIGHTS.part())).raddress(header.weightsAt())
                : null;
        long[] record = new long[(int) (VertexLayout.BYTES / Long.BYTES)];
        CarafeGraph.copySection(rstore, graph, header, GraphHeader.Section.VERTICES, from, VertexLayout.BYTES, MemorySegment.ofArray(record),
                CarafeGraph.PIECE_BYTES);
        this.firstEdge = VertexLayout.firstEdge(MemorySegment.ofArray(record), 0);
        this.edgeStart = edgeStart;
        this.windowEdges = windowEdges;
        this.weightBytes = header.weightBytes();
        this.targetChunks = direct ? new DirectChunks(targets) : null;
        this.weightChunks = direct && weights != null ? new DirectChunks(weights) : null;
        long edges = edgeStart[edgeStart.length - 1];
        if (targetChunks != null) { // the partition's chunks, mapped at setup rather than in its first sparse superstep
            targetChunks.mapAhead(firstEdge * EdgeLayout.TARGET_BYTES, (firstEdge + edges) * EdgeLayout.TARGET_BYTES);
        }
        if (weightChunks != null) {
            weightChunks.mapAhead(firstEdge * weightBytes, (firstEdge + edges) * weightBytes);
        }
    }

    /**
     * Reads the lists of {@code vertices[first]}, {@code vertices[first + 1]}, … (local
     * vertices, ascending), as many as one window holds, at least one; returns the index
     * past the last one read. Their edges stay readable until the next call.
     */
    public int read(int[] vertices, int first, int count) {
        closeWindow();
        long start = edgeStart[vertices[first]];
        long firstEnd = edgeStart[vertices[first] + 1];
        boolean crossing = false; // the first list crosses a chunk the client reaches directly: it alone is mapped
        if (firstEnd > start && targetChunks != null) {
            int end = readDirect(vertices, first, count, start);
            if (end > first) {
                return end;
            }
            crossing = end == first;
        }
        long limit = crossing ? firstEnd : Math.max(Math.min(start + windowEdges, start + beforeBoundary(start)), firstEnd);
        int end = first;
        while (end < count && edgeStart[vertices[end] + 1] <= limit) {
            end++;
        }
        long length = edgeStart[vertices[end - 1] + 1] - start;
        targetsFrom = start;
        weightsFrom = start;
        if (length == 0) {
            return end; // vertices without out-edges: nothing to read
        }
        targetWindow = targets.map((firstEdge + start) * EdgeLayout.TARGET_BYTES, length * EdgeLayout.TARGET_BYTES, WINDOW_FLAGS);
        targetBytes = targetWindow.segment();
        if (weights != null) {
            weightWindow = weights.map((firstEdge + start) * weightBytes, length * weightBytes, WINDOW_FLAGS);
            weightMemory = weightWindow.segment();
        }
        long runStart = -1;
        long runEnd = -1;
        for (int i = first; i < end; i++) {
            long from = edgeStart[vertices[i]] - start;
            long to = edgeStart[vertices[i] + 1] - start;
            if (from == to) {
                continue;
            }
            if (runEnd >= 0 && from - runEnd <= MERGE_GAP_EDGES) {
                runEnd = to;
                continue;
            }
            readRun(runStart, runEnd);
            runStart = from;
            runEnd = to;
        }
        readRun(runStart, runEnd);
        batch.join();
        return end;
    }

    /**
     * {@link #read} over the chunks' own bytes: the lists from the first one's on that lie in
     * the chunk of its targets (and of its weights). Returns {@code first} where the first
     * list crosses a chunk, and -1 where the client does not reach the chunk directly: then
     * the window is mapped.
     */
    private int readDirect(int[] vertices, int first, int count, long start) {
        long targetAt = (firstEdge + start) * EdgeLayout.TARGET_BYTES;
        int c = targetChunks.chunkOf(targetAt);
        MemorySegment targetChunk = targetChunks.direct(c);
        if (targetChunk == null || targetChunks.chunkStart(c) % EdgeLayout.TARGET_BYTES != 0) {
            return -1;
        }
        long limit = start + (targetChunks.chunkEnd(c) - targetAt) / EdgeLayout.TARGET_BYTES; // edges before the chunk's end
        long targetLead = targetChunks.chunkStart(c) / EdgeLayout.TARGET_BYTES - firstEdge;
        MemorySegment weightChunk = null;
        long weightLead = 0;
        if (weightChunks != null) {
            long weightAt = (firstEdge + start) * weightBytes;
            int w = weightChunks.chunkOf(weightAt);
            weightChunk = weightChunks.direct(w);
            if (weightChunk == null || weightChunks.chunkStart(w) % weightBytes != 0) {
                return -1;
            }
            limit = Math.min(limit, start + (weightChunks.chunkEnd(w) - weightAt) / weightBytes);
            weightLead = weightChunks.chunkStart(w) / weightBytes - firstEdge;
        }
        int end = first;
        while (end < count && edgeStart[vertices[end] + 1] <= limit) {
            end++;
        }
        if (end > first) {
            targetBytes = targetChunk;
            targetsFrom = targetLead;
            weightMemory = weightChunk;
            weightsFrom = weightLead;
        }
        return end;
    }

    /**
     * Edges from the partition's edge {@code start} on before the next multiple of a
     * window's bytes of targets (and of weights) in the namespace's address space, which
     * chunk boundaries are too: a window that ends there lies within one chunk, so it is the
     * graph's own bytes where the transport reaches them ({@link MapFlags#DIRECT}).
     */
    private long beforeBoundary(long start) {
        long bytes = windowEdges * EdgeLayout.TARGET_BYTES;
        long edge = firstEdge + start;
        long before = (bytes - Math.floorMod(targets.address() + edge * EdgeLayout.TARGET_BYTES, bytes)) / EdgeLayout.TARGET_BYTES;
        if (weights != null) {
            before = Math.min(before, (bytes - Math.floorMod(weights.address() + edge * weightBytes, bytes)) / weightBytes);
        }
        return Math.max(1, before);
    }

    private void readRun(long from, long to) {
        if (to <= from) {
            return;
        }
        batch.read(targetWindow, from * EdgeLayout.TARGET_BYTES, (to - from) * EdgeLayout.TARGET_BYTES);
        if (weightWindow != null) {
            batch.read(weightWindow, from * weightBytes, (to - from) * weightBytes);
        }
    }

    /** The target of the partition's edge {@code e}, of a list the last {@link #read} read. */
    public int target(long e) {
        return EdgeLayout.target(targetBytes, e - targetsFrom);
    }

    /** The weight of the partition's edge {@code e}, as {@link #target}: 1 without weights. */
    public double weight(long e) {
        return weightMemory == null ? 1 : EdgeLayout.weight(weightMemory, e - weightsFrom, weightBytes);
    }

    private void closeWindow() {
        weightMemory = null;
        if (targetWindow != null) {
            targetWindow.close();
            targetWindow = null;
        }
        if (weightWindow != null) {
            weightWindow.close();
            weightWindow = null;
        }
    }

    @Override
    public void close() {
        closeWindow();
        if (targetChunks != null) {
            targetChunks.close();
        }
        if (weightChunks != null) {
            weightChunks.close();
        }
    }
}

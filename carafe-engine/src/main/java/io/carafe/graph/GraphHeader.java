package io.carafe.graph;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The header of a graph: the first bytes of its binary cache file and the whole of its
 * meta segment in RStore (at the meta namespace's init address). One layout for both, so
 * a cached graph goes into RStore by bulk copies.
 *
 * <pre>
 *  0  magic "CARAFEG1"      8  format version (int)   12 state (int: 0 building, 1 complete)
 * 16  flags (int: 1 directed, 2 weighted)             20 vertex record bytes (int)
 * 24  vertex count (long)  32  edge count (long)
 * 40  min weight (double)  48  max weight (double)
 * 56  vertices at (long)   64  edges at (long)        72 weights at (long, -1 if none)
 *     (file offsets in a cache file; segment addresses in RStore)
 * 80  source bytes (long)  88  source modified ms    96 import options fingerprint (long)
 * 104 partition count (int) ... up to BYTES
 * </pre>
 */
public record GraphHeader(
        int state,
        boolean directed,
        boolean weighted,
        long vertexCount,
        long edgeCount,
        double minWeight,
        double maxWeight,
        long verticesAt,
        long edgesAt,
        long weightsAt,
        long sourceBytes,
        long sourceModifiedMillis,
        long optionsFingerprint) {

    public static final long BYTES = 4096;
    public static final long MAGIC = 0x31474546_41524143L; // "CARAFEG1" little-endian
    public static final int FORMAT_VERSION = 1;
    public static final int BUILDING = 0;
    public static final int COMPLETE = 1;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private static final long MAGIC_AT = 0;
    private static final long VERSION_AT = 8;
    private static final long STATE_AT = 12;
    private static final long FLAGS_AT = 16;
    private static final long RECORD_BYTES_AT = 20;
    private static final long VERTEX_COUNT_AT = 24;
    private static final long EDGE_COUNT_AT = 32;
    private static final long MIN_WEIGHT_AT = 40;
    private static final long MAX_WEIGHT_AT = 48;
    private static final long VERTICES_AT = 56;
    private static final long EDGES_AT = 64;
    private static final long WEIGHTS_AT = 72;
    private static final long SOURCE_BYTES_AT = 80;
    private static final long SOURCE_MODIFIED_AT = 88;
    private static final long FINGERPRINT_AT = 96;

    /**
     * Whether both headers describe the same graph: imported from a source of the same size
     * and modification time with the same import options (or generated alike), with the same
     * shape. What a cluster that already holds a graph of that name is asked before reusing it.
     */
    public boolean sameGraphAs(GraphHeader other) {
        return directed == other.directed && weighted == other.weighted && vertexCount == other.vertexCount
                && edgeCount == other.edgeCount && sourceBytes == other.sourceBytes
                && sourceModifiedMillis == other.sourceModifiedMillis && optionsFingerprint == other.optionsFingerprint;
    }

    /** The state byte's offset: written last, on its own, to publish a complete graph. */
    public static long stateOffset() {
        return STATE_AT;
    }

    public GraphHeader withState(int newState) {
        return new GraphHeader(newState, directed, weighted, vertexCount, edgeCount, minWeight, maxWeight,
                verticesAt, edgesAt, weightsAt, sourceBytes, sourceModifiedMillis, optionsFingerprint);
    }

    public GraphHeader withSections(long vertices, long edges, long weights) {
        return new GraphHeader(state, directed, weighted, vertexCount, edgeCount, minWeight, maxWeight,
                vertices, edges, weights, sourceBytes, sourceModifiedMillis, optionsFingerprint);
    }

    public long verticesBytes() {
        return vertexCount * VertexLayout.BYTES;
    }

    public long edgesBytes() {
        return edgeCount * Integer.BYTES;
    }

    public long weightsBytes() {
        return weighted ? edgeCount * Double.BYTES : 0;
    }

    public void writeTo(MemorySegment s) {
        s.asSlice(0, BYTES).fill((byte) 0);
        s.set(LONG, MAGIC_AT, MAGIC);
        s.set(INT, VERSION_AT, FORMAT_VERSION);
        s.set(INT, STATE_AT, state);
        s.set(INT, FLAGS_AT, (directed ? 1 : 0) | (weighted ? 2 : 0));
        s.set(INT, RECORD_BYTES_AT, (int) VertexLayout.BYTES);
        s.set(LONG, VERTEX_COUNT_AT, vertexCount);
        s.set(LONG, EDGE_COUNT_AT, edgeCount);
        s.set(DOUBLE, MIN_WEIGHT_AT, minWeight);
        s.set(DOUBLE, MAX_WEIGHT_AT, maxWeight);
        s.set(LONG, VERTICES_AT, verticesAt);
        s.set(LONG, EDGES_AT, edgesAt);
        s.set(LONG, WEIGHTS_AT, weightsAt);
        s.set(LONG, SOURCE_BYTES_AT, sourceBytes);
        s.set(LONG, SOURCE_MODIFIED_AT, sourceModifiedMillis);
        s.set(LONG, FINGERPRINT_AT, optionsFingerprint);
    }

    /** Reads a header; {@code null} if the bytes do not start with the magic and this version. */
    public static GraphHeader readFrom(MemorySegment s) {
        if (s.byteSize() < BYTES || s.get(LONG, MAGIC_AT) != MAGIC || s.get(INT, VERSION_AT) != FORMAT_VERSION
                || s.get(INT, RECORD_BYTES_AT) != VertexLayout.BYTES) {
            return null;
        }
        int flags = s.get(INT, FLAGS_AT);
        return new GraphHeader(s.get(INT, STATE_AT), (flags & 1) != 0, (flags & 2) != 0,
                s.get(LONG, VERTEX_COUNT_AT), s.get(LONG, EDGE_COUNT_AT),
                s.get(DOUBLE, MIN_WEIGHT_AT), s.get(DOUBLE, MAX_WEIGHT_AT),
                s.get(LONG, VERTICES_AT), s.get(LONG, EDGES_AT), s.get(LONG, WEIGHTS_AT),
                s.get(LONG, SOURCE_BYTES_AT), s.get(LONG, SOURCE_MODIFIED_AT), s.get(LONG, FINGERPRINT_AT));
    }
}

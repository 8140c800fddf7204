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
 * 16  flags (int: 1 directed, 2 weighted, 4 weights as floats)   20 vertex record bytes (int)
 * 24  vertex count (long)  32  edge count (long)
 * 40  min weight (double)  48  max weight (double)
 * 56  vertices at (long)   64  edges at (long)        72 weights at (long, -1 if none)
 *     (file offsets in a cache file; segment addresses in RStore)
 * 80  source bytes (long)  88  source modified ms    96 import options fingerprint (long)
 * 104 in-offsets at (long) 112 in-sources at (long)  120 in-weights at (long)
 *     (-1 where absent) ... zeros up to BYTES
 * </pre>
 *
 * <p>A directed graph also stores its in-edges (format 2 on): per vertex the index of its
 * first in-edge ({@code vertexCount + 1} longs), the sources of the in-edges grouped by
 * target and ascending within a group, and their weights when the graph is weighted. They
 * are built once, at import, so no job scans the whole graph to find what points at its
 * vertices. An undirected graph stores each edge both ways, so its out-edges are its in-edges.
 * Weights take 8 bytes, or 4 when every one is a float exactly (format 3 on; {@link EdgeLayout}).
 */
public record GraphHeader(
        int state,
        boolean directed,
        boolean weighted,
        int weightBytes,
        long vertexCount,
        long edgeCount,
        double minWeight,
        double maxWeight,
        long verticesAt,
        long edgesAt,
        long weightsAt,
        long sourceBytes,
        long sourceModifiedMillis,
        long optionsFingerprint,
        long inOffsetsAt,
        long inSourcesAt,
        long inWeightsAt) {

    public static final long BYTES = 4096;
    public static final long MAGIC = 0x31474546_41524143L; // "CARAFEG1" little-endian
    /**
     * 3: weights may be floats (flag 4). 2: in-edges stored for directed graphs, weights
     * doubles; still read. Files and graphs of other versions are not read (imports build
     * them again).
     */
    public static final int FORMAT_VERSION = 3;
    public static final int OLDEST_READ = 2;
    public static final int BUILDING = 0;
    public static final int COMPLETE = 1;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfDouble DOUBLE = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    // each field's offset follows from the one before and its size, as drawn above
    private static final long MAGIC_AT = 0;
    private static final long VERSION_AT = MAGIC_AT + Long.BYTES;
    private static final long STATE_AT = VERSION_AT + Integer.BYTES;
    private static final long FLAGS_AT = STATE_AT + Integer.BYTES;
    private static final long RECORD_BYTES_AT = FLAGS_AT + Integer.BYTES;
    private static final long VERTEX_COUNT_AT = RECORD_BYTES_AT + Integer.BYTES;
    private static final long EDGE_COUNT_AT = VERTEX_COUNT_AT + Long.BYTES;
    private static final long MIN_WEIGHT_AT = EDGE_COUNT_AT + Long.BYTES;
    private static final long MAX_WEIGHT_AT = MIN_WEIGHT_AT + Double.BYTES;
    private static final long VERTICES_AT = MAX_WEIGHT_AT + Double.BYTES;
    private static final long EDGES_AT = VERTICES_AT + Long.BYTES;
    private static final long WEIGHTS_AT = EDGES_AT + Long.BYTES;
    private static final long SOURCE_BYTES_AT = WEIGHTS_AT + Long.BYTES;
    private static final long SOURCE_MODIFIED_AT = SOURCE_BYTES_AT + Long.BYTES;
    private static final long FINGERPRINT_AT = SOURCE_MODIFIED_AT + Long.BYTES;
    private static final long IN_OFFSETS_AT = FINGERPRINT_AT + Long.BYTES;
    private static final long IN_SOURCES_AT = IN_OFFSETS_AT + Long.BYTES;
    private static final long IN_WEIGHTS_AT = IN_SOURCES_AT + Long.BYTES;

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

    public GraphHeader {
        if (weightBytes != EdgeLayout.DOUBLE_WEIGHT_BYTES && weightBytes != EdgeLayout.FLOAT_WEIGHT_BYTES) {
            throw new IllegalArgumentException("weights take 4 or 8 bytes, not " + weightBytes);
        }
    }

    public GraphHeader withState(int newState) {
        return new GraphHeader(newState, directed, weighted, weightBytes, vertexCount, edgeCount, minWeight, maxWeight,
                verticesAt, edgesAt, weightsAt, sourceBytes, sourceModifiedMillis, optionsFingerprint, inOffsetsAt, inSourcesAt, inWeightsAt);
    }

    /** The header with each section at {@code at[section.ordinal()]} (-1 for a section the graph does not have). */
    public GraphHeader withSections(long[] at) {
        return new GraphHeader(state, directed, weighted, weightBytes, vertexCount, edgeCount, minWeight, maxWeight,
                at[Section.VERTICES.ordinal()], at[Section.EDGES.ordinal()], at[Section.WEIGHTS.ordinal()],
                sourceBytes, sourceModifiedMillis, optionsFingerprint,
                at[Section.IN_OFFSETS.ordinal()], at[Section.IN_SOURCES.ordinal()], at[Section.IN_WEIGHTS.ordinal()]);
    }

    /** A graph's arrays: sections of its cache file, and segments (one namespace each) in RStore. */
    public enum Section {
        VERTICES("vertices"), EDGES("edges"), WEIGHTS("weights"), IN_OFFSETS("in-offsets"), IN_SOURCES("in-sources"), IN_WEIGHTS("in-weights");

        private final String part;

        Section(String part) {
            this.part = part;
        }

        /** The name of its namespace under the graph's, {@code carafe/NAME/PART}. */
        public String part() {
            return part;
        }
    }

    /** Whether the graph has this section: weights when weighted, in-edges when directed. */
    public boolean has(Section s) {
        return switch (s) {
            case VERTICES, EDGES -> true;
            case WEIGHTS -> weighted;
            case IN_OFFSETS, IN_SOURCES -> directed;
            case IN_WEIGHTS -> directed && weighted;
        };
    }

    /** Where a section starts (a file offset, or a segment address in RStore); -1 when the graph has none. */
    public long at(Section s) {
        return switch (s) {
            case VERTICES -> verticesAt;
            case EDGES -> edgesAt;
            case WEIGHTS -> weightsAt;
            case IN_OFFSETS -> inOffsetsAt;
            case IN_SOURCES -> inSourcesAt;
            case IN_WEIGHTS -> inWeightsAt;
        };
    }

    /** A section's length in bytes; 0 when the graph has none. */
    public long bytes(Section s) {
        if (!has(s)) {
            return 0;
        }
        return switch (s) {
            case VERTICES -> vertexCount * VertexLayout.BYTES;
            case EDGES, IN_SOURCES -> edgeCount * Integer.BYTES;
            case WEIGHTS, IN_WEIGHTS -> edgeCount * weightBytes;
            case IN_OFFSETS -> (vertexCount + 1) * Long.BYTES;
        };
    }

    /** The bytes of every section together. */
    public long totalBytes() {
        long total = 0;
        for (Section s : Section.values()) {
            total += bytes(s);
        }
        return total;
    }

    public long verticesBytes() {
        return bytes(Section.VERTICES);
    }

    public long edgesBytes() {
        return bytes(Section.EDGES);
    }

    public long weightsBytes() {
        return bytes(Section.WEIGHTS);
    }

    /** Edge {@code edge}'s weight in an array of this graph's weights (a section's, or a piece read from one from its start). */
    public double weight(MemorySegment weights, long edge) {
        return EdgeLayout.weight(weights, edge, weightBytes);
    }

    public void writeTo(MemorySegment s) {
        s.asSlice(0, BYTES).fill((byte) 0);
        s.set(LONG, MAGIC_AT, MAGIC);
        s.set(INT, VERSION_AT, FORMAT_VERSION);
        s.set(INT, STATE_AT, state);
        s.set(INT, FLAGS_AT, (directed ? 1 : 0) | (weighted ? 2 : 0) | (weightBytes == EdgeLayout.FLOAT_WEIGHT_BYTES ? 4 : 0));
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
        s.set(LONG, IN_OFFSETS_AT, inOffsetsAt);
        s.set(LONG, IN_SOURCES_AT, inSourcesAt);
        s.set(LONG, IN_WEIGHTS_AT, inWeightsAt);
    }

    /** The format version the bytes claim, or -1 when they do not start with the magic. */
    public static int formatVersion(MemorySegment s) {
        return s.byteSize() >= BYTES && s.get(LONG, MAGIC_AT) == MAGIC ? s.get(INT, VERSION_AT) : -1;
    }

    /** Whether this build reads graphs of format {@code version}. */
    public static boolean reads(int version) {
        return version >= OLDEST_READ && version <= FORMAT_VERSION;
    }

    /** Reads a header; {@code null} if the bytes do not start with the magic and this version. */
    public static GraphHeader readFrom(MemorySegment s) {
        if (s.byteSize() < BYTES || s.get(LONG, MAGIC_AT) != MAGIC || !reads(s.get(INT, VERSION_AT))
                || s.get(INT, RECORD_BYTES_AT) != VertexLayout.BYTES) {
            return null;
        }
        int flags = s.get(INT, FLAGS_AT);
        return new GraphHeader(s.get(INT, STATE_AT), (flags & 1) != 0, (flags & 2) != 0,
                (flags & 4) != 0 ? EdgeLayout.FLOAT_WEIGHT_BYTES : EdgeLayout.DOUBLE_WEIGHT_BYTES,
                s.get(LONG, VERTEX_COUNT_AT), s.get(LONG, EDGE_COUNT_AT),
                s.get(DOUBLE, MIN_WEIGHT_AT), s.get(DOUBLE, MAX_WEIGHT_AT),
                s.get(LONG, VERTICES_AT), s.get(LONG, EDGES_AT), s.get(LONG, WEIGHTS_AT),
                s.get(LONG, SOURCE_BYTES_AT), s.get(LONG, SOURCE_MODIFIED_AT), s.get(LONG, FINGERPRINT_AT),
                s.get(LONG, IN_OFFSETS_AT), s.get(LONG, IN_SOURCES_AT), s.get(LONG, IN_WEIGHTS_AT));
    }
}

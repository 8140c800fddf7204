package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.carafe.progress.Progress;
import io.rstore.AllocFlags;
import io.rstore.Batch;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.protocol.NamespaceInfo;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A graph stored in RStore, as namespaces {@code carafe/NAME/meta} (the {@link GraphHeader}
 * at the init address), {@code .../vertices} ({@link VertexLayout} records),
 * {@code .../edges} and {@code .../weights} ({@link EdgeLayout}) and, for a directed graph,
 * its in-edges in {@code .../in-offsets}, {@code .../in-sources} and {@code .../in-weights}
 * (one namespace per {@link GraphHeader.Section}).
 *
 * <p>Opening a graph maps each array once (the control path: one master call per array);
 * vertex handles and edge iterators then pull only the bytes they need with one-sided
 * reads (the data path). Mapping per vertex would put a master round trip on every step
 * of a traversal. Thread-safe for reading.
 */
public final class CarafeGraph implements AutoCloseable {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final String PREFIX = "carafe/";
    /** Bytes mapped at a time by the section reads of setup work: the local memory they take, whatever the graph's size. */
    public static final long PIECE_BYTES = 8L << 20;
    /** What a graph maps when first asked: records, targets and weights. In-edges are read by range when needed ({@link InEdgeLists}). */
    private static final List<GraphHeader.Section> ONLINE_SECTIONS = List.of(GraphHeader.Section.VERTICES, GraphHeader.Section.EDGES, GraphHeader.Section.WEIGHTS);

    private static final VarHandle MAPPED = MethodHandles.arrayElementVarHandle(Mapping[].class);

    private final RStore rstore;
    private final String name;
    private final GraphHeader header;
    private final RAddress[] segments; // by Section ordinal; null where the graph has none
    private final Mapping[] sections;  // mapped when first asked for: a Pregel command's coordinator never reads the edges
    private boolean closed;

    private CarafeGraph(RStore rstore, String name, GraphHeader header, RAddress[] segments) {
        this.rstore = rstore;
        this.name = name;
        this.header = header;
        this.segments = segments;
        this.sections = new Mapping[segments.length];
    }

    /** The namespace holding one part of a graph: meta, or a {@link GraphHeader.Section#part()}. */
    public static String namespace(String graph, String part) {
        return PREFIX + graph + "/" + part;
    }

    private static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new GraphStoreException("'" + name + "' is not a graph name: use 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
    }

    /**
     * Loads a graph file into RStore under {@code name}. The header is published last
     * (state COMPLETE); if anything fails, every namespace created is deleted again, so
     * nothing half-written stays under the name.
     */
    public static CarafeGraph create(RStore rstore, String name, GraphFile file) {
        return create(rstore, name, file, null);
    }

    /** As {@link #create(RStore, String, GraphFile)}, saying how far the load is on {@code progress} (or null). */
    public static CarafeGraph create(RStore rstore, String name, GraphFile file, PrintStream progress) {
        load(rstore, name, file, progress);
        return open(rstore, name);
    }

    /** Loads a graph file into RStore under {@code name} without opening it (see {@link #create}). */
    public static void load(RStore rstore, String name, GraphFile file) {
        load(rstore, name, file, null);
    }

    /** As {@link #load(RStore, String, GraphFile)}, with its progress (bytes loaded, a section at a time) on {@code progress} (or null). */
    public static void load(RStore rstore, String name, GraphFile file, PrintStream progress) {
        checkName(name);
        GraphHeader h = file.header();
        List<String> created = new ArrayList<>();
        try (Progress bar = progress == null ? null
                : Progress.start(progress, "loading " + name + " into RStore", h.totalBytes(), " MB", 1 << 20)) {
            Namespace meta = createPart(rstore, name, "meta", created);
            RAddress metaSegment = meta.bootstrap(GraphHeader.BYTES);
            long[] at = new long[GraphHeader.Section.values().length];
            long done = 0;
            for (GraphHeader.Section s : GraphHeader.Section.values()) {
                at[s.ordinal()] = -1;
                if (h.has(s)) {
                    at[s.ordinal()] = load(createPart(rstore, name, s.part(), created), file, h.at(s), h.bytes(s)).address();
                    done += h.bytes(s);
                    if (bar != null) {
                        bar.update(done, s.part() + " loaded");
                    }
                }
            }
            try (Mapping m = metaSegment.map(MapFlags.NONE)) {
                h.withState(GraphHeader.BUILDING).withSections(at).writeTo(m.segment());
                m.write();
                m.segment().set(ValueLayout.JAVA_INT_UNALIGNED, GraphHeader.stateOffset(), GraphHeader.COMPLETE);
                m.write(GraphHeader.stateOffset(), Integer.BYTES);
            }
        } catch (RuntimeException failure) {
            for (int i = created.size() - 1; i >= 0; i--) {
                try {
                    rstore.deleteNamespace(created.get(i));
                } catch (RStoreException cleanup) {
                    failure.addSuppressed(cleanup);
                }
            }
            if (failure instanceof RStoreException rse && rse.code() == ErrorCode.NAMESPACE_EXISTS && created.isEmpty()) {
                throw new GraphStoreException("a graph named '" + name + "' is already in RStore; delete it first (carafe graphs drop "
                        + name + ") or pick another name", failure);
            }
            throw failure;
        }
    }

    private static Namespace createPart(RStore rstore, String graph, String part, List<String> created) {
        Namespace ns = rstore.createNamespace(namespace(graph, part));
        created.add(ns.name());
        return ns;
    }

    /**
     * A section of the graph file as a new segment: on an embedded cluster its whole chunks
     * are the file's pages (the cache file lays large sections out on chunk boundaries), the
     * rest is written straight from the file; nothing is copied on this side either way.
     */
    private static RAddress load(Namespace ns, GraphFile file, long at, long bytes) {
        return bytes == 0 ? ns.alloc(1, AllocFlags.GROW) : ns.allocFromFile(file.path(), at, bytes);
    }

    /** The header of a complete graph in RStore, without mapping its arrays. */
    public static GraphHeader header(RStore rstore, String name) {
        return readHeader(rstore, name);
    }

    /** The header of a complete graph in RStore. */
    static GraphHeader readHeader(RStore rstore, String name) {
        checkName(name);
        return readHeader(joinMeta(rstore, name), name);
    }

    private static GraphHeader readHeader(Namespace meta, String name) {
        GraphHeader header;
        try (Mapping m = meta.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.READ_ONLY | MapFlags.PREFETCH)) {
            header = GraphHeader.readFrom(m.segment());
        }
        if (header == null) {
            int version = formatVersion(meta);
            throw new GraphStoreException("'" + name + "' in RStore is " + (version < 0 ? "not a Carafe graph" : "a Carafe graph of format " + version)
                    + "; this Carafe reads formats " + GraphHeader.OLDEST_READ + " to " + GraphHeader.FORMAT_VERSION + ": " + loadAgain(name));
        }
        if (header.state() != GraphHeader.COMPLETE) {
            throw new GraphStoreException("graph '" + name + "' is incomplete (its load failed or is still running): " + loadAgain(name));
        }
        return header;
    }

    /** The format version of the graph's header (-1 when it is not a Carafe graph); {@link GraphHeader#reads} says which are read. */
    public static int formatVersion(RStore rstore, String name) {
        checkName(name);
        return formatVersion(joinMeta(rstore, name));
    }

    private static int formatVersion(Namespace meta) {
        try (Mapping m = meta.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.READ_ONLY | MapFlags.PREFETCH)) {
            return GraphHeader.formatVersion(m.segment());
        }
    }

    private static Namespace joinMeta(RStore rstore, String name) {
        try {
            return rstore.joinNamespace(namespace(name, "meta"));
        } catch (RStoreException e) {
            if (e.code() == ErrorCode.NO_SUCH_NAMESPACE) {
                throw new GraphStoreException("no graph named '" + name + "' in RStore; load it first (CarafeGraph.create)", e);
            }
            throw e;
        }
    }

    /**
     * The out-degrees of vertices {@code [from, to)} of a graph in RStore, from their records
     * alone (read a piece at a time, its reads all in flight); for setup work that needs
     * every vertex's degree.
     */
    public static int[] outDegrees(RStore rstore, String name, int from, int to) {
        GraphHeader header = readHeader(rstore, name);
        if (from < 0 || to > header.vertexCount() || from > to) {
            throw new IndexOutOfBoundsException("vertex range [" + from + ", " + to + ") is not within 0.." + header.vertexCount());
        }
        int[] degrees = new int[to - from];
        int perPiece = (int) (PIECE_BYTES / VertexLayout.BYTES);
        long[] records = new long[(int) (Math.min(perPiece, to - from) * VertexLayout.BYTES / Long.BYTES)]; // read as longs: VertexLayout.degree(long[], int)
        MemorySegment recordBytes = MemorySegment.ofArray(records);
        for (int v = from; v < to; v += perPiece) {
            int n = Math.min(perPiece, to - v);
            copySection(rstore, name, header, GraphHeader.Section.VERTICES, v, VertexLayout.BYTES, recordBytes.asSlice(0, n * VertexLayout.BYTES), PIECE_BYTES);
            for (int i = 0; i < n; i++) {
                degrees[v - from + i] = VertexLayout.degree(records, i);
            }
        }
        return degrees;
    }

    /**
     * The in-degrees of vertices {@code [from, to)}: from the stored in-offsets of a directed
     * graph, the out-degrees of an undirected one.
     */
    public static int[] inDegrees(RStore rstore, String name, int from, int to) {
        GraphHeader header = readHeader(rstore, name);
        if (!header.directed()) {
            return outDegrees(rstore, name, from, to);
        }
        if (from < 0 || to > header.vertexCount() || from > to) {
            throw new IndexOutOfBoundsException("vertex range [" + from + ", " + to + ") is not within 0.." + header.vertexCount());
        }
        long[] offsets = new long[to - from + 1];
        copySection(rstore, name, header, GraphHeader.Section.IN_OFFSETS, from, Long.BYTES, MemorySegment.ofArray(offsets), PIECE_BYTES);
        int[] degrees = new int[to - from];
        for (int i = 0; i < degrees.length; i++) {
            degrees[i] = (int) (offsets[i + 1] - offsets[i]);
        }
        return degrees;
    }

    /**
     * The out-edge targets of vertices {@code [from, to)}, in order (vertex by vertex, as
     * stored): {@code edges} of them, which the caller knows from the out-degrees.
     */
    public static int[] outTargets(RStore rstore, String name, int from, int to, int edges) {
        GraphHeader header = readHeader(rstore, name);
        int[] targets = new int[edges];
        if (edges > 0) {
            long[] record = new long[(int) (VertexLayout.BYTES / Long.BYTES)];
            copySection(rstore, name, header, GraphHeader.Section.VERTICES, from, VertexLayout.BYTES, MemorySegment.ofArray(record), PIECE_BYTES);
            long first = VertexLayout.firstEdge(MemorySegment.ofArray(record), 0);
            copySection(rstore, name, header, GraphHeader.Section.EDGES, first, Integer.BYTES, MemorySegment.ofArray(targets), PIECE_BYTES);
        }
        return targets;
    }

    /**
     * Copies the elements of a section from element {@code first} on into {@code into} (a
     * segment over an array; the graph's little-endian values in this machine's order), a
     * piece of at most {@code pieceBytes} mapped at a time: where the transport reaches the
     * server's memory and the piece lies in one chunk, its own bytes ({@link MapFlags#DIRECT}),
     * copied once; elsewhere read into the mapping first.
     */
    static void copySection(RStore rstore, String graph, GraphHeader h, GraphHeader.Section s, long first, long elementBytes, MemorySegment into,
                     long pieceBytes) {
        if (into.byteSize() == 0) {
            return;
        }
        RAddress segment = rstore.joinNamespace(CarafeGraph.namespace(graph, s.part())).raddress(h.at(s));
        long at = first * elementBytes;
        for (long done = 0; done < into.byteSize(); done += pieceBytes) {
            long length = Math.min(pieceBytes, into.byteSize() - done);
            try (Mapping m = segment.map(at + done, length, MapFlags.READ_ONLY | MapFlags.DIRECT)) {
                if (!m.isDirect()) { // direct: the server's own bytes, copied from once below
                    Batch batch = new Batch();
                    for (long w = 0; w < length; w += SequentialEdgeIterator.WINDOW_BYTES) {
                        batch.read(m, w, Math.min(SequentialEdgeIterator.WINDOW_BYTES, length - w));
                    }
                    batch.join();
                }
                MemorySegment.copy(m.segment(), 0, into, done, length);
            }
        }
    }

    /** The advice for a graph that cannot be used as it is in RStore. */
    static String loadAgain(String name) {
        return "load it again (CarafeGraph.delete(\"" + name + "\"), then CarafeGraph.load)";
    }

    /** Opens a graph stored in RStore: reads its header and finds its arrays, which are mapped when first used. */
    public static CarafeGraph open(RStore rstore, String name) {
        checkName(name);
        Namespace meta = joinMeta(rstore, name);
        GraphHeader header = readHeader(meta, name);
        RAddress[] segments = new RAddress[GraphHeader.Section.values().length];
        for (GraphHeader.Section s : ONLINE_SECTIONS) {
            if (header.has(s)) {
                segments[s.ordinal()] = rstore.joinNamespace(namespace(name, s.part())).raddress(header.at(s));
            }
        }
        return new CarafeGraph(rstore, name, header, segments);
    }

    private static void closeAll(Mapping[] mappings) {
        for (Mapping m : mappings) {
            if (m != null) {
                m.close();
            }
        }
    }

    /** Deletes a graph's namespaces (meta last, so a half-deleted graph is never taken for a whole one). */
    public static void delete(RStore rstore, String name) {
        checkName(name);
        boolean any = false;
        List<String> parts = new ArrayList<>();
        for (GraphHeader.Section s : GraphHeader.Section.values()) {
            parts.addFirst(s.part());
        }
        parts.add("meta");
        for (String part : parts) {
            try {
                rstore.deleteNamespace(namespace(name, part));
                any = true;
            } catch (RStoreException e) {
                if (e.code() != ErrorCode.NO_SUCH_NAMESPACE) {
                    throw e;
                }
            }
        }
        if (!any) {
            throw new GraphStoreException("no graph named '" + name + "' in RStore");
        }
    }

    /** Whether a graph (complete or not) of that name is in RStore. */
    public static boolean exists(RStore rstore, String name) {
        checkName(name);
        String meta = namespace(name, "meta");
        return rstore.namespaces().stream().anyMatch(ns -> ns.name().equals(meta));
    }

    /** Names of the graphs in RStore. */
    public static List<String> list(RStore rstore) {
        List<String> names = new ArrayList<>();
        for (NamespaceInfo ns : rstore.namespaces()) {
            String n = ns.name();
            if (n.startsWith(PREFIX) && n.endsWith("/meta")) {
                names.add(n.substring(PREFIX.length(), n.length() - "/meta".length()));
            }
        }
        return names;
    }

    public String name() {
        return name;
    }

    public RStore rstore() {
        return rstore;
    }

    public GraphHeader header() {
        return header;
    }

    public int vertexCount() {
        return (int) header.vertexCount();
    }

    public long edgeCount() {
        return header.edgeCount();
    }

    public boolean isDirected() {
        return header.directed();
    }

    public boolean isWeighted() {
        return header.weighted();
    }

    /** The internal id of an original id, or -1: a binary search with one 8-byte read per step. */
    public int vertexId(long originalId) {
        Mapping vertices = vertexRecords();
        return VertexLayout.find(vertices.segment(), vertexCount(), originalId,
                record -> vertices.read(VertexLayout.offset(record) + VertexLayout.ORIGINAL_ID, Long.BYTES));
    }

    /** A handle on vertex {@code id} (its record read). */
    public VertexHandle vertex(int id) {
        return new VertexHandle(this).moveTo(id);
    }

    /** A new edge iterator, to be pointed at a vertex's edges with {@link EdgeIterator#reset} and reused. */
    public EdgeIterator edgeIterator() {
        return new EdgeIterator(this);
    }

    /** Iterates vertices {@code [from, to)} and their edges with large sequential reads. */
    public SequentialEdgeIterator scan(int from, int to) {
        return new SequentialEdgeIterator(this, from, to);
    }

    /**
     * The mapped arrays, for algorithms that schedule their own reads (batches, prefetch).
     * Local bytes are only valid for ranges read; weights is null for an unweighted graph.
     */
    public Mapping vertexRecords() {
        return section(GraphHeader.Section.VERTICES);
    }

    public Mapping edgeTargets() {
        return section(GraphHeader.Section.EDGES);
    }

    public Mapping edgeWeights() {
        return section(GraphHeader.Section.WEIGHTS);
    }

    private Mapping section(GraphHeader.Section s) {
        Mapping m = (Mapping) MAPPED.getAcquire(sections, s.ordinal());
        return m != null || segments[s.ordinal()] == null ? m : map(s);
    }

    /** Maps a section whole (its local memory is taken now, its bytes read as they are asked for). */
    private synchronized Mapping map(GraphHeader.Section s) {
        if (closed) {
            throw new GraphStoreException("graph '" + name + "' was closed");
        }
        Mapping m = sections[s.ordinal()];
        if (m == null) {
            m = segments[s.ordinal()].map(0, Math.max(header.bytes(s), 1), MapFlags.READ_ONLY);
            MAPPED.setRelease(sections, s.ordinal(), m);
        }
        return m;
    }

    void checkVertex(int id) {
        if (id < 0 || id >= header.vertexCount()) {
            throw new IndexOutOfBoundsException("vertex " + id + " is not in graph '" + name + "' (0.." + (header.vertexCount() - 1) + ")");
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        closeAll(sections);
    }

    @Override
    public String toString() {
        return "CarafeGraph[" + name + ": " + header.vertexCount() + " vertices, " + header.edgeCount() + " edges]";
    }
}

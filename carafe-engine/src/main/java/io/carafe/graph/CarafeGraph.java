package io.carafe.graph;

import io.carafe.importer.GraphFile;
import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.protocol.NamespaceInfo;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A graph stored in RStore, as namespaces {@code carafe/NAME/meta} (the {@link GraphHeader}
 * at the init address), {@code .../vertices} ({@link VertexLayout} records),
 * {@code .../edges} and {@code .../weights} ({@link EdgeLayout}).
 *
 * <p>Opening a graph maps each array once (the control path: one master call per array);
 * vertex handles and edge iterators then pull only the bytes they need with one-sided
 * reads (the data path). Mapping per vertex would put a master round trip on every step
 * of a traversal. Thread-safe for reading.
 */
public final class CarafeGraph implements AutoCloseable {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final String PREFIX = "carafe/";

    private final RStore rstore;
    private final String name;
    private final GraphHeader header;
    private final Mapping vertices;
    private final Mapping edges;
    private final Mapping weights;

    private CarafeGraph(RStore rstore, String name, GraphHeader header, Mapping vertices, Mapping edges, Mapping weights) {
        this.rstore = rstore;
        this.name = name;
        this.header = header;
        this.vertices = vertices;
        this.edges = edges;
        this.weights = weights;
    }

    /** The namespace holding one part (meta, vertices, edges, weights) of a graph. */
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
    public static CarafeGraph create(RStore rstore, String name, GraphFile file, java.io.PrintStream progress) {
        load(rstore, name, file, progress);
        return open(rstore, name);
    }

    /** Loads a graph file into RStore under {@code name} without opening it (see {@link #create}). */
    public static void load(RStore rstore, String name, GraphFile file) {
        load(rstore, name, file, null);
    }

    /** As {@link #load(RStore, String, GraphFile)}, with its progress (bytes loaded, a section at a time) on {@code progress} (or null). */
    public static void load(RStore rstore, String name, GraphFile file, java.io.PrintStream progress) {
        checkName(name);
        GraphHeader h = file.header();
        List<String> created = new ArrayList<>();
        long total = h.verticesBytes() + h.edgesBytes() + (h.weighted() ? h.weightsBytes() : 0);
        try (io.carafe.progress.Progress bar = progress == null ? null
                : io.carafe.progress.Progress.start(progress, "loading " + name + " into RStore", total, " MB", 1 << 20)) {
            Namespace meta = createPart(rstore, name, "meta", created);
            RAddress metaSegment = meta.bootstrap(GraphHeader.BYTES);
            RAddress v = load(createPart(rstore, name, "vertices", created), file, h.verticesAt(), h.verticesBytes());
            loaded(bar, h.verticesBytes(), "vertices");
            RAddress e = load(createPart(rstore, name, "edges", created), file, h.edgesAt(), h.edgesBytes());
            loaded(bar, h.verticesBytes() + h.edgesBytes(), "edges");
            RAddress w = h.weighted() ? load(createPart(rstore, name, "weights", created), file, h.weightsAt(), h.weightsBytes()) : null;
            loaded(bar, total, "weights");
            try (Mapping m = metaSegment.map(MapFlags.NONE)) {
                h.withState(GraphHeader.BUILDING).withSections(v.address(), e.address(), w == null ? -1 : w.address()).writeTo(m.segment());
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

    private static void loaded(io.carafe.progress.Progress bar, long bytes, String part) {
        if (bar != null) {
            bar.update(bytes, part + " loaded");
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
            throw new GraphStoreException("'" + name + "' in RStore is not a Carafe graph of format " + GraphHeader.FORMAT_VERSION);
        }
        if (header.state() != GraphHeader.COMPLETE) {
            throw new GraphStoreException("graph '" + name + "' is incomplete (its load failed or is still running); delete it (carafe graphs drop "
                    + name + ", or --replace) and load it again");
        }
        return header;
    }

    private static Namespace joinMeta(RStore rstore, String name) {
        try {
            return rstore.joinNamespace(namespace(name, "meta"));
        } catch (RStoreException e) {
            if (e.code() == ErrorCode.NO_SUCH_NAMESPACE) {
                throw new GraphStoreException("no graph named '" + name + "' in RStore; load it first (CarafeGraph.create, or a carafe command with --graph)", e);
            }
            throw e;
        }
    }

    /** Opens a graph stored in RStore: reads its header and maps its arrays. */
    public static CarafeGraph open(RStore rstore, String name) {
        checkName(name);
        Namespace meta = joinMeta(rstore, name);
        GraphHeader header = readHeader(meta, name);
        List<Mapping> opened = new ArrayList<>();
        try {
            Mapping v = mapPart(rstore, name, "vertices", header.verticesAt(), header.verticesBytes(), opened);
            Mapping e = mapPart(rstore, name, "edges", header.edgesAt(), header.edgesBytes(), opened);
            Mapping w = header.weighted() ? mapPart(rstore, name, "weights", header.weightsAt(), header.weightsBytes(), opened) : null;
            return new CarafeGraph(rstore, name, header, v, e, w);
        } catch (RuntimeException failure) {
            opened.forEach(Mapping::close);
            throw failure;
        }
    }

    private static Mapping mapPart(RStore rstore, String graph, String part, long address, long bytes, List<Mapping> opened) {
        RAddress segment = rstore.joinNamespace(namespace(graph, part)).raddress(address);
        Mapping m = segment.map(0, Math.max(bytes, 1), MapFlags.READ_ONLY);
        opened.add(m);
        return m;
    }

    /** Deletes a graph's namespaces (meta last, so a half-deleted graph is never taken for a whole one). */
    public static void delete(RStore rstore, String name) {
        checkName(name);
        boolean any = false;
        for (String part : new String[] {"weights", "edges", "vertices", "meta"}) {
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
        int lo = 0;
        int hi = vertexCount() - 1;
        MemorySegment records = vertices.segment();
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            vertices.read(VertexLayout.offset(mid) + VertexLayout.ORIGINAL_ID, Long.BYTES);
            long found = VertexLayout.originalId(records, mid);
            if (found < originalId) {
                lo = mid + 1;
            } else if (found > originalId) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
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
        return vertices;
    }

    public Mapping edgeTargets() {
        return edges;
    }

    public Mapping edgeWeights() {
        return weights;
    }

    void checkVertex(int id) {
        if (id < 0 || id >= header.vertexCount()) {
            throw new IndexOutOfBoundsException("vertex " + id + " is not in graph '" + name + "' (0.." + (header.vertexCount() - 1) + ")");
        }
    }

    @Override
    public void close() {
        vertices.close();
        edges.close();
        if (weights != null) {
            weights.close();
        }
    }

    @Override
    public String toString() {
        return "CarafeGraph[" + name + ": " + header.vertexCount() + " vertices, " + header.edgeCount() + " edges]";
    }
}

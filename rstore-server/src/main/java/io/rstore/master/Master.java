package io.rstore.master;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ChunkService;
import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerInfo;
import it.unimi.dsi.fastutil.longs.Long2IntMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The master: all metadata of a cluster, in memory, mutated under one lock so every call
 * is atomic. Namespaces own chunks laid end to end as their address space; segments are
 * carved first-fit out of that space, 64-byte aligned; chunks freed by a namespace go to
 * a per-server pool, re-keyed and zeroed, for the next reservation.
 */
public final class Master implements MasterProtocol {
    /** Segments start on cache-line boundaries so a polled flag never shares a line. */
    static final long ALIGNMENT = 64;

    private static final class Chunk {
        final int serverId;
        final int chunkId;
        final boolean mappedFile; // a file's pages (allocFromFile): released, never pooled
        long key;

        Chunk(int serverId, int chunkId, long key, boolean mappedFile) {
            this.serverId = serverId;
            this.chunkId = chunkId;
            this.key = key;
            this.mappedFile = mappedFile;
        }
    }

    private static final class Server {
        final int id;
        final String address;
        final String shm;
        final String rdma;
        final ChunkService service;
        final String controlToken; // a daemon's; null for a server in this process
        final ArrayDeque<Chunk> pool = new ArrayDeque<>();
        boolean alive = true;

        Server(int id, String address, String shm, String rdma, ChunkService service, String controlToken) {
            this.id = id;
            this.controlToken = controlToken;
            this.address = address;
            this.shm = shm;
            this.rdma = rdma;
            this.service = service;
        }
    }

    private static final class Segment {
        final long address;
        final long length;
        final long span;
        int mapRefs;

        Segment(long address, long length, long span) {
            this.address = address;
            this.length = length;
            this.span = span;
        }
    }

    private static final class Space {
        final long id;
        final String name;
        final List<Chunk> chunks = new ArrayList<>();
        final TreeMap<Long, Segment> segments = new TreeMap<>();
        final TreeMap<Long, Long> free = new TreeMap<>(); // start -> end, coalesced
        int stripe;

        Space(long id, String name, int stripe) {
            this.id = id;
            this.name = name;
            this.stripe = stripe;
        }
    }

    private static final class Session {
        final String name;
        final Long2ObjectOpenHashMap<Long2IntOpenHashMap> refs = new Long2ObjectOpenHashMap<>(); // namespace -> address -> count

        Session(String name) {
            this.name = name;
        }
    }

    private final long chunkSize;
    private final List<Server> servers = new ArrayList<>();
    private final Map<String, Space> byName = new HashMap<>();
    private final Long2ObjectOpenHashMap<Space> byId = new Long2ObjectOpenHashMap<>();
    private final Long2ObjectOpenHashMap<Session> sessions = new Long2ObjectOpenHashMap<>();
    private long nextNamespaceId = 1;
    private long nextSessionId = 1;

    /** Reaches a memory server daemon that asked to join: its data address and control token give a {@link ChunkService}. */
    @FunctionalInterface
    public interface ServerConnector {
        ChunkService connect(String address, String controlToken);
    }

    private final ServerConnector connector;
    private final long startedNanos = System.nanoTime();
    private long[] lastBeatNanos = new long[0]; // by server id: when it last answered a ping; 0: never pinged

    /** A master whose memory servers are registered in-process ({@link #registerServer(String, ChunkService)}). */
    public Master(long chunkSizeBytes) {
        this(chunkSizeBytes, null);
    }

    /** A master that memory server daemons join over the network, reached through {@code connector}. */
    public Master(long chunkSizeBytes, ServerConnector connector) {
        if (Long.bitCount(chunkSizeBytes) != 1 || chunkSizeBytes < ALIGNMENT) {
            throw ErrorCode.INVALID_ARGUMENT.exception("chunk size must be a power of two >= 64, was " + chunkSizeBytes);
        }
        this.chunkSize = chunkSizeBytes;
        this.connector = connector;
    }

    // ---- memory servers ----

    /** Registers a memory server; returns its id. */
    public synchronized int registerServer(String address, ChunkService service) {
        return add(address, "", "", service, null);
    }

    private int add(String address, String shm, String rdma, ChunkService service, String controlToken) {
        int id = servers.size();
        servers.add(new Server(id, address + (controlToken == null ? "" : "/" + id), shm, rdma, service, controlToken));
        return id;
    }

    @Override
    public int registerServer(String address, String shm, String rdma, long capacityBytes, String controlToken, int[] chunkIds) {
        if (connector == null) {
            throw ErrorCode.UNSUPPORTED.exception("this master's memory servers run in its own process; it takes no daemons");
        }
        Integer known = known(address, controlToken);
        if (known != null) {
            return known; // the server's repeated registration: it is here, alive, with its chunks
        }
        // connect outside the lock: a slow or unreachable server must not stall everyone else's calls
        ChunkService service = connector.connect(address, controlToken);
        try {
            if (service.capacityBytes() != capacityBytes) {
                throw ErrorCode.INVALID_ARGUMENT.exception("the server at " + address + " says it has " + service.capacityBytes()
                        + " bytes, its registration said " + capacityBytes + "; is another server at that address?");
            }
            for (int chunk : chunkIds) { // no namespace here refers to them: what they held is gone with the old master
                service.releaseChunk(chunk);
            }
        } catch (RuntimeException e) {
            if (service instanceof AutoCloseable connection) {
                try {
                    connection.close();
                } catch (Exception ignored) {
                    // refusing it anyway
                }
            }
            throw e;
        }
        synchronized (this) {
            return add(address, shm, rdma, service, controlToken);
        }
    }

    /** The id of the live daemon server registered with this address and token, or null. */
    private synchronized Integer known(String address, String controlToken) {
        for (Server s : servers) {
            if (s.alive && controlToken.equals(s.controlToken) && s.address.equals(address + "/" + s.id)) {
                return s.id;
            }
        }
        return null;
    }

    /** Marks a server dead: no new chunks go there; its chunks' data is lost. */
    public synchronized void markDead(int serverId) {
        server(serverId).alive = false;
    }

    /**
     * Pings every live server, all at once and outside the master's lock (a hung server
     * delays no one else's verdict; each ping is bounded by its connection's call timeout);
     * marks dead those that do not answer, and returns them.
     */
    public List<ServerInfo> checkServers() {
        List<Server> live;
        synchronized (this) {
            live = servers.stream().filter(s -> s.alive).toList();
        }
        List<Thread> pings = new ArrayList<>(live.size());
        boolean[] answered = new boolean[live.size()];
        for (int i = 0; i < live.size(); i++) {
            int index = i;
            pings.add(Thread.ofVirtual().start(() -> {
                try {
                    live.get(index).service.ping();
                    answered[index] = true;
                } catch (RuntimeException e) {
                    // not answered
                }
            }));
        }
        List<ServerInfo> died = new ArrayList<>();
        for (int i = 0; i < live.size(); i++) {
            try {
                pings.get(i).join(); // happens-before: answered[i] is visible after the join
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return died;
            }
            Server s = live.get(i);
            if (answered[i]) {
                beat(s.id);
            }
            if (!answered[i]) {
                markDead(s.id);
                died.add(new ServerInfo(s.id, s.address, s.shm, s.rdma, s.service.capacityBytes(), s.service.usedBytes(), false));
            }
        }
        return died;
    }

    /**
     * Gauges of the master's state, registered under {@code rstore.master.}: sessions,
     * namespaces, live and dead memory servers, chunks held by namespaces and pooled, uptime.
     */
    public void registerGauges(com.codahale.metrics.MetricRegistry registry) {
        registry.gauge("rstore.master.sessions", () -> () -> { synchronized (this) { return sessions.size(); } });
        registry.gauge("rstore.master.namespaces", () -> () -> { synchronized (this) { return byName.size(); } });
        registry.gauge("rstore.master.servers.alive", () -> () -> { synchronized (this) { return servers.stream().filter(s -> s.alive).count(); } });
        registry.gauge("rstore.master.servers.dead", () -> () -> { synchronized (this) { return servers.stream().filter(s -> !s.alive).count(); } });
        registry.gauge("rstore.master.chunks.held", () -> () -> { synchronized (this) { return byName.values().stream().mapToLong(sp -> sp.chunks.size()).sum(); } });
        registry.gauge("rstore.master.chunks.pooled", () -> () -> { synchronized (this) { return servers.stream().mapToLong(s -> s.pool.size()).sum(); } });
        registry.gauge("rstore.master.uptime.seconds", () -> () -> (System.nanoTime() - startedNanos) / 1_000_000_000L);
    }

    private synchronized void beat(int serverId) {
        if (serverId >= lastBeatNanos.length) {
            lastBeatNanos = java.util.Arrays.copyOf(lastBeatNanos, Math.max(serverId + 1, 2 * lastBeatNanos.length));
        }
        lastBeatNanos[serverId] = System.nanoTime();
    }

    @Override
    public synchronized io.rstore.protocol.ClusterInfo clusterInfo() {
        long now = System.nanoTime();
        List<Long> ages = new ArrayList<>(servers.size());
        for (Server s : servers) {
            long beat = s.id < lastBeatNanos.length ? lastBeatNanos[s.id] : 0;
            ages.add(beat == 0 ? -1 : (now - beat) / 1_000_000);
        }
        return new io.rstore.protocol.ClusterInfo(io.rstore.RStore.VERSION, (now - startedNanos) / 1_000_000, ages);
    }

    @Override
    public synchronized List<ClientInfo> clients() {
        List<ClientInfo> out = new ArrayList<>(sessions.size());
        for (Long2ObjectOpenHashMap.Entry<Session> e : sessions.long2ObjectEntrySet()) {
            int mappings = 0;
            for (Long2IntOpenHashMap refs : e.getValue().refs.values()) {
                for (int count : refs.values()) {
                    mappings += count;
                }
            }
            out.add(new ClientInfo(e.getLongKey(), e.getValue().name, mappings));
        }
        out.sort(Comparator.comparingLong(ClientInfo::session));
        return out;
    }

    @Override
    public synchronized List<ServerInfo> servers() {
        List<ServerInfo> out = new ArrayList<>(servers.size());
        for (Server s : servers) {
            out.add(new ServerInfo(s.id, s.address, s.shm, s.rdma, s.service.capacityBytes(), s.service.usedBytes(), s.alive));
        }
        return out;
    }

    @Override
    public long chunkSizeBytes() {
        return chunkSize;
    }

    // ---- sessions ----

    @Override
    public synchronized long openSession(String clientName) {
        long id = nextSessionId++;
        sessions.put(id, new Session(clientName == null ? "client-" + id : clientName));
        return id;
    }

    @Override
    public synchronized void closeSession(long session) {
        Session s = sessions.remove(session);
        if (s == null) {
            return;
        }
        for (Long2ObjectOpenHashMap.Entry<Long2IntOpenHashMap> ns : s.refs.long2ObjectEntrySet()) {
            Space space = byId.get(ns.getLongKey());
            if (space == null) {
                continue;
            }
            for (Long2IntMap.Entry ref : ns.getValue().long2IntEntrySet()) {
                Segment seg = space.segments.get(ref.getLongKey());
                if (seg != null) {
                    seg.mapRefs -= ref.getIntValue();
                }
            }
        }
    }

    /** Open client sessions. */
    public synchronized int sessionCount() {
        return sessions.size();
    }

    // ---- namespaces ----

    @Override
    public synchronized NamespaceInfo createNamespace(long session, String name) {
        session(session);
        if (name == null || name.isBlank() || name.length() > 255) {
            throw ErrorCode.INVALID_ARGUMENT.exception("a namespace name must be 1..255 characters, was '" + name + "'");
        }
        if (byName.containsKey(name)) {
            throw ErrorCode.NAMESPACE_EXISTS.exception("namespace '" + name + "' exists");
        }
        long id = nextNamespaceId++;
        Space space = new Space(id, name, servers.isEmpty() ? 0 : (int) (id % servers.size()));
        byName.put(name, space);
        byId.put(id, space);
        return info(space);
    }

    @Override
    public synchronized NamespaceInfo joinNamespace(long session, String name) {
        session(session);
        Space space = byName.get(name);
        if (space == null) {
            throw ErrorCode.NO_SUCH_NAMESPACE.exception("no namespace '" + name + "'");
        }
        return info(space);
    }

    @Override
    public synchronized void deleteNamespace(long session, String name) {
        session(session);
        Space space = byName.get(name);
        if (space == null) {
            throw ErrorCode.NO_SUCH_NAMESPACE.exception("cannot delete namespace '" + name + "': it does not exist");
        }
        for (Segment seg : space.segments.values()) {
            if (seg.mapRefs > 0) {
                throw ErrorCode.SEGMENT_IN_USE.exception("cannot delete namespace '" + name + "': segment at " + seg.address
                        + " is mapped " + seg.mapRefs + " time(s)");
            }
        }
        byName.remove(name);
        byId.remove(space.id);
        for (Chunk chunk : space.chunks) {
            recycle(chunk);
        }
        space.chunks.clear();
    }

    @Override
    public synchronized NamespaceInfo namespaceInfo(long session, long namespaceId) {
        session(session);
        return info(space(namespaceId));
    }

    @Override
    public synchronized List<NamespaceInfo> namespaces(long session) {
        session(session);
        List<NamespaceInfo> out = new ArrayList<>();
        for (Space space : byName.values()) {
            out.add(info(space));
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    // ---- reservations ----

    @Override
    public synchronized long reserve(long session, long namespaceId, long bytes) {
        session(session);
        Space space = space(namespaceId);
        if (bytes <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("reserve needs a positive number of bytes, was " + bytes);
        }
        reserveChunks(space, chunksFor(bytes));
        return reservedBytes(space);
    }

    @Override
    public synchronized long release(long session, long namespaceId, long bytes) {
        session(session);
        Space space = space(namespaceId);
        if (bytes <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("release needs a positive number of bytes, was " + bytes);
        }
        long n = chunksFor(bytes);
        if (n > space.chunks.size()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot release " + n + " chunk(s) from namespace '" + space.name
                    + "': it holds " + space.chunks.size());
        }
        long end = reservedBytes(space);
        long tailStart = end - n * chunkSize;
        Map.Entry<Long, Long> range = space.free.floorEntry(tailStart);
        if (range == null || range.getValue() < end) {
            Segment last = space.segments.lastEntry().getValue();
            throw ErrorCode.SEGMENT_IN_USE.exception("cannot release the last " + n + " chunk(s) of namespace '" + space.name
                    + "': segment at " + last.address + " lies in them; free it first");
        }
        if (range.getKey() < tailStart) {
            space.free.put(range.getKey(), tailStart);
        } else {
            space.free.remove(range.getKey());
        }
        for (long i = 0; i < n; i++) {
            Chunk chunk = space.chunks.removeLast();
            space.stripe = chunk.serverId; // rewind, so chunk k goes back to the server it had
            recycle(chunk);
        }
        return reservedBytes(space);
    }

    // ---- segments ----

    @Override
    public synchronized SegmentInfo alloc(long session, long namespaceId, long bytes, int flags) {
        session(session);
        Space space = space(namespaceId);
        checkAlloc(bytes, flags);
        long span = align(bytes);
        long at = firstFit(space, span);
        if (at < 0 && (flags & AllocFlags.GROW) != 0) {
            Map.Entry<Long, Long> tail = space.free.lastEntry();
            long tailFree = tail != null && tail.getValue() == reservedBytes(space) ? tail.getValue() - tail.getKey() : 0;
            reserveChunks(space, chunksFor(span - tailFree));
            at = firstFit(space, span);
        }
        if (at < 0) {
            throw ErrorCode.INSUFFICIENT_RESERVATION.exception("namespace '" + space.name + "' has no free range of " + span
                    + " bytes (reserved " + reservedBytes(space) + ", largest free range " + largestFree(space) + ")");
        }
        return place(space, at, bytes, span, flags);
    }

    @Override
    public synchronized SegmentInfo allocFromFile(long session, long namespaceId, String file, long offset, long length) {
        session(session);
        Space space = space(namespaceId);
        checkAlloc(length, AllocFlags.NONE);
        if (offset < 0 || offset % chunkSize != 0 || length < chunkSize) {
            throw ErrorCode.UNSUPPORTED.exception("a file is mapped from a multiple of the chunk size (" + chunkSize + "), at least one chunk;"
                    + " asked for " + length + " bytes at " + offset);
        }
        long whole = length / chunkSize;
        checkChunkCount(space, chunksFor(length));
        List<Chunk> taken = new ArrayList<>();
        try {
            for (long k = 0; k < whole; k++) {
                taken.add(mapChunk(space, file, offset + k * chunkSize));
            }
            if (length % chunkSize != 0) {
                taken.add(takeChunk(space));
            }
        } catch (RuntimeException e) {
            giveBack(taken);
            throw e;
        }
        long start = reservedBytes(space);
        append(space, taken);
        return place(space, start, length, align(length), AllocFlags.NONE);
    }

    /** One chunk of a file's pages from the next live server in the stripe. */
    private Chunk mapChunk(Space space, String file, long offset) {
        int count = servers.size();
        for (int attempt = 0; attempt < count; attempt++) {
            Server server = servers.get((space.stripe + attempt) % count);
            if (server.alive) {
                ChunkService.Grant grant = server.service.mapFile(file, offset, chunkSize);
                space.stripe = (server.id + 1) % count;
                return new Chunk(server.id, grant.chunkId(), grant.key(), true);
            }
        }
        throw ErrorCode.OUT_OF_MEMORY.exception("no live memory server to map " + file + " for namespace '" + space.name + "'");
    }

    @Override
    public synchronized SegmentInfo allocAt(long session, long namespaceId, long address, long bytes, int flags) {
        session(session);
        Space space = space(namespaceId);
        checkAlloc(bytes, flags);
        if (address < 0 || address % ALIGNMENT != 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("segment addresses are non-negative multiples of " + ALIGNMENT + ", was " + address);
        }
        long span = align(bytes);
        long end = address + span;
        Map.Entry<Long, Segment> before = space.segments.lowerEntry(end);
        if (before != null && before.getValue().address + before.getValue().span > address) {
            throw ErrorCode.ADDRESS_IN_USE.exception("[" + address + ", " + end + ") of namespace '" + space.name
                    + "' overlaps the segment at " + before.getKey());
        }
        long reserved = reservedBytes(space);
        if (end > reserved) {
            if ((flags & AllocFlags.GROW) == 0) {
                throw ErrorCode.INSUFFICIENT_RESERVATION.exception("[" + address + ", " + end + ") lies beyond the "
                        + reserved + " bytes namespace '" + space.name + "' reserved");
            }
            reserveChunks(space, chunksFor(end - reserved));
        }
        return place(space, address, bytes, span, flags);
    }

    @Override
    public synchronized void free(long session, long namespaceId, long address) {
        session(session);
        Space space = space(namespaceId);
        Segment seg = segment(space, address);
        if (seg.mapRefs > 0) {
            throw ErrorCode.SEGMENT_IN_USE.exception("cannot free the segment at " + address + " of namespace '" + space.name
                    + "': it is mapped " + seg.mapRefs + " time(s)");
        }
        space.segments.remove(address);
        addFree(space, address, address + seg.span);
    }

    @Override
    public synchronized SegmentInfo lookup(long session, long namespaceId, long address) {
        session(session);
        Space space = space(namespaceId);
        return locate(space, segment(space, address));
    }

    @Override
    public synchronized SegmentInfo map(long session, long namespaceId, long address) {
        Session s = session(session);
        Space space = space(namespaceId);
        Segment seg = segment(space, address);
        seg.mapRefs++;
        s.refs.computeIfAbsent(namespaceId, k -> new Long2IntOpenHashMap()).addTo(address, 1);
        return locate(space, seg);
    }

    @Override
    public synchronized void unmap(long session, long namespaceId, long address) {
        Session s = session(session);
        Space space = space(namespaceId);
        Long2IntOpenHashMap refs = s.refs.get(namespaceId);
        if (refs == null || refs.get(address) <= 0) {
            throw ErrorCode.INVALID_ADDRESS.exception("this client has not mapped the segment at " + address + " of namespace '" + space.name + "'");
        }
        if (refs.addTo(address, -1) == 1) {
            refs.remove(address);
        }
        segment(space, address).mapRefs--;
    }

    // ---- internals ----

    private void checkAlloc(long bytes, int flags) {
        if (bytes <= 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("a segment needs a positive length, was " + bytes);
        }
        if ((flags & ~(AllocFlags.ZERO | AllocFlags.GROW)) != 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("unknown alloc flags " + Integer.toBinaryString(flags) + "; use AllocFlags");
        }
    }

    private SegmentInfo place(Space space, long address, long length, long span, int flags) {
        carve(space, address, address + span);
        Segment seg = new Segment(address, length, span);
        space.segments.put(address, seg);
        if ((flags & AllocFlags.ZERO) != 0) {
            forEachPiece(space, address, length, (chunk, offset, n) -> servers.get(chunk.serverId).service.zero(chunk.chunkId, offset, n));
        }
        return locate(space, seg);
    }

    private interface PieceVisitor {
        void visit(Chunk chunk, long offset, long length);
    }

    private void forEachPiece(Space space, long address, long length, PieceVisitor visitor) {
        long at = address;
        long end = address + length;
        while (at < end) {
            long within = at & (chunkSize - 1);
            long n = Math.min(end - at, chunkSize - within);
            visitor.visit(space.chunks.get((int) (at / chunkSize)), within, n);
            at += n;
        }
    }

    private SegmentInfo locate(Space space, Segment seg) {
        int first = (int) (seg.address / chunkSize);
        int last = (int) ((seg.address + seg.length - 1) / chunkSize);
        List<ChunkLocation> chunks = new ArrayList<>(last - first + 1);
        for (int i = first; i <= last; i++) {
            Chunk c = space.chunks.get(i);
            chunks.add(new ChunkLocation(i, c.serverId, c.chunkId, c.key));
        }
        return new SegmentInfo(space.id, seg.address, seg.length, chunkSize, chunks);
    }

    private long firstFit(Space space, long span) {
        for (Map.Entry<Long, Long> range : space.free.entrySet()) {
            if (range.getValue() - range.getKey() >= span) {
                return range.getKey();
            }
        }
        return -1;
    }

    private long largestFree(Space space) {
        long largest = 0;
        for (Map.Entry<Long, Long> range : space.free.entrySet()) {
            largest = Math.max(largest, range.getValue() - range.getKey());
        }
        return largest;
    }

    /** Takes [start, end) out of the free range that holds it. */
    private void carve(Space space, long start, long end) {
        Map.Entry<Long, Long> range = space.free.floorEntry(start);
        if (range == null || range.getValue() < end) {
            throw ErrorCode.ADDRESS_IN_USE.exception("[" + start + ", " + end + ") of namespace '" + space.name + "' is not free");
        }
        long rangeStart = range.getKey();
        long rangeEnd = range.getValue();
        space.free.remove(rangeStart);
        if (rangeStart < start) {
            space.free.put(rangeStart, start);
        }
        if (end < rangeEnd) {
            space.free.put(end, rangeEnd);
        }
    }

    private void addFree(Space space, long start, long end) {
        Map.Entry<Long, Long> lower = space.free.floorEntry(start);
        if (lower != null && lower.getValue() == start) {
            start = lower.getKey();
            space.free.remove(start);
        }
        Long higherEnd = space.free.remove(end);
        if (higherEnd != null) {
            end = higherEnd;
        }
        space.free.put(start, end);
    }

    /** Adds n chunks to the address space, striped round-robin; all or nothing. */
    private void reserveChunks(Space space, long n) {
        checkChunkCount(space, n);
        List<Chunk> taken = new ArrayList<>();
        try {
            for (long i = 0; i < n; i++) {
                taken.add(takeChunk(space));
            }
        } catch (RuntimeException e) {
            giveBack(taken);
            throw e;
        }
        append(space, taken);
    }

    private void checkChunkCount(Space space, long n) {
        if (n > Integer.MAX_VALUE - space.chunks.size()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("cannot add " + n + " chunks to namespace '" + space.name + "'");
        }
    }

    /** Lays chunks at the end of the address space, each a free range. */
    private void append(Space space, List<Chunk> chunks) {
        for (Chunk chunk : chunks) {
            long start = reservedBytes(space);
            space.chunks.add(chunk);
            addFree(space, start, start + chunkSize);
        }
    }

    /** Undoes taking chunks that no namespace saw: pooled ones go back untouched, a file's pages are released. */
    private void giveBack(List<Chunk> chunks) {
        for (Chunk chunk : chunks) {
            if (chunk.mappedFile) {
                recycle(chunk);
            } else {
                servers.get(chunk.serverId).pool.push(chunk);
            }
        }
    }

    private Chunk takeChunk(Space space) {
        int count = servers.size();
        if (count == 0) {
            throw ErrorCode.OUT_OF_MEMORY.exception("no memory server is registered with the master");
        }
        for (int attempt = 0; attempt < count; attempt++) {
            Server server = servers.get((space.stripe + attempt) % count);
            if (!server.alive) {
                continue;
            }
            Chunk chunk = server.pool.poll();
            if (chunk == null && server.service.usedBytes() + chunkSize <= server.service.capacityBytes()) {
                ChunkService.Grant grant;
                try {
                    grant = server.service.allocateChunk(chunkSize);
                } catch (RStoreException e) {
                    if (e.code() != ErrorCode.SERVER_UNAVAILABLE && e.code() != ErrorCode.TIMED_OUT) {
                        throw e;
                    }
                    server.alive = false; // found dead before the heartbeat did: the next server takes the chunk
                    continue;
                }
                chunk = new Chunk(server.id, grant.chunkId(), grant.key(), false);
            }
            if (chunk != null) {
                space.stripe = (server.id + 1) % count;
                return chunk;
            }
        }
        throw ErrorCode.OUT_OF_MEMORY.exception("no live memory server has a free chunk of " + chunkSize + " bytes for namespace '"
                + space.name + "'");
    }

    /** Back to its server's pool with a new key, so credentials handed out before are dead; a file's pages are released. */
    private void recycle(Chunk chunk) {
        Server server = servers.get(chunk.serverId);
        if (!server.alive) {
            return;
        }
        try {
            if (chunk.mappedFile) {
                server.service.releaseChunk(chunk.chunkId);
                return;
            }
            chunk.key = server.service.recycle(chunk.chunkId);
        } catch (RStoreException e) {
            if (e.code() != ErrorCode.SERVER_UNAVAILABLE && e.code() != ErrorCode.TIMED_OUT) {
                throw e;
            }
            server.alive = false; // its chunks are lost with it; the namespace lets go of this one anyway
            return;
        }
        server.pool.push(chunk);
    }

    private long chunksFor(long bytes) {
        return (bytes + chunkSize - 1) / chunkSize;
    }

    private static long align(long bytes) {
        return (bytes + ALIGNMENT - 1) & -ALIGNMENT;
    }

    private long reservedBytes(Space space) {
        return (long) space.chunks.size() * chunkSize;
    }

    private NamespaceInfo info(Space space) {
        long allocated = 0;
        int mapped = 0;
        for (Segment seg : space.segments.values()) {
            allocated += seg.length;
            if (seg.mapRefs > 0) {
                mapped++;
            }
        }
        return new NamespaceInfo(space.id, space.name, reservedBytes(space), allocated, space.segments.size(), mapped);
    }

    private Session session(long id) {
        Session s = sessions.get(id);
        if (s == null) {
            throw ErrorCode.CLOSED.exception("client session " + id + " is not open (closed, or dropped by the master)");
        }
        return s;
    }

    private Space space(long id) {
        Space space = byId.get(id);
        if (space == null) {
            throw ErrorCode.NO_SUCH_NAMESPACE.exception("namespace #" + id + " was deleted");
        }
        return space;
    }

    private Server server(int id) {
        if (id < 0 || id >= servers.size()) {
            throw ErrorCode.INVALID_ARGUMENT.exception("no memory server " + id);
        }
        return servers.get(id);
    }

    private static Segment segment(Space space, long address) {
        Segment seg = space.segments.get(address);
        if (seg == null) {
            throw ErrorCode.INVALID_ADDRESS.exception("no segment starts at " + address + " in namespace '" + space.name + "'");
        }
        return seg;
    }
}

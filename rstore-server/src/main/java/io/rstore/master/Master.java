package io.rstore.master;

import com.codahale.metrics.MetricRegistry;
import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.NamespaceFlags;
import io.rstore.RStore;
import io.rstore.RStoreException;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ChunkService;
import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.ClusterInfo;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerInfo;
import io.rstore.protocol.ServerRegistration;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import it.unimi.dsi.fastutil.longs.Long2IntMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * The master: all metadata of a cluster, in memory, mutated under one lock so every call
 * is atomic. Namespaces own chunks laid end to end as their address space; segments are
 * carved first-fit out of that space, 64-byte aligned; chunks freed by a namespace go to
 * a per-server pool, re-keyed and zeroed, for the next reservation.
 *
 * <p>Every change to that metadata is one of {@link MetadataChanges}, made through
 * {@link #record}: with a persistence directory it is also journaled, and a call's changes
 * are on disk before it is answered ({@link #commit}); a restarted master replays them,
 * and memory servers rejoin it with their chunks. Sessions and mapping references end
 * with the process.
 */
public final class Master implements MasterProtocol {
    /** Segments start on cache-line boundaries so a polled flag never shares a line. */
    static final long ALIGNMENT = 64;
    /**
     * The threads of calls to the memory servers made at once (pings, persists): platform
     * threads, each gone when its call returns. A virtual thread's blocking socket read
     * starts the JDK's poller thread, which then waits in epoll for good, and a JVM with a
     * thread in native code waits 300 ms before it exits.
     */
    private static final ThreadFactory SERVER_CALLS = Thread.ofPlatform().name("rstore-server-call").daemon().factory(); // safe to share

    private static final class Chunk {
        final int serverId;
        final int chunkId;
        final boolean mappedFile; // a file's pages (allocFromFile): released, never pooled
        long key;
        boolean lost; // its server rejoined without it: DATA_LOST to whoever maps it

        Chunk(int serverId, int chunkId, long key, boolean mappedFile) {
            this.serverId = serverId;
            this.chunkId = chunkId;
            this.key = key;
            this.mappedFile = mappedFile;
        }
    }

    private static final class Server {
        final int id;
        final String identity;
        final boolean durable;
        final ArrayDeque<Chunk> pool = new ArrayDeque<>();
        String address;
        String shm;
        String rdma;
        ChunkService service;  // null until it joins this master's process
        String controlToken;   // a daemon's; null for a server in this process
        boolean alive;

        Server(int id, String identity, boolean durable, String address, String shm, String rdma) {
            this.id = id;
            this.identity = identity;
            this.durable = durable;
            this.address = address;
            this.shm = shm;
            this.rdma = rdma;
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
        final int flags; // NamespaceFlags
        final List<Chunk> chunks = new ArrayList<>();
        final TreeMap<Long, Segment> segments = new TreeMap<>();
        final TreeMap<Long, Long> free = new TreeMap<>(); // start -> end, coalesced
        int stripe;

        Space(long id, String name, int stripe, int flags) {
            this.id = id;
            this.name = name;
            this.stripe = stripe;
            this.flags = flags;
        }

        boolean durable() {
            return (flags & NamespaceFlags.DURABLE) != 0;
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
    private final Consumer<String> log;
    private final long startedNanos = System.nanoTime();
    private long[] lastBeatNanos = new long[0]; // by server id: when it last answered a ping; 0: never pinged
    private final MetadataChanges state = new StateChanges();
    private final Journal journal;  // null: the metadata lives in memory only
    private final MetadataChanges record; // every change goes through here: to the state, and to the journal if any

    /** A master whose memory servers are registered in-process ({@link #registerServer(String, ChunkService)}). */
    public Master(long chunkSizeBytes) {
        this(chunkSizeBytes, null);
    }

    /** A master that memory server daemons join over the network, reached through {@code connector}. */
    public Master(long chunkSizeBytes, ServerConnector connector) {
        this(chunkSizeBytes, connector, null, line -> { });
    }

    /**
     * As {@link #Master(long, ServerConnector)}, keeping its metadata in {@code persistenceDirectory}
     * (null: in memory only), whose journal it replays first; {@code log} hears of what a
     * restart finds (a torn journal record, servers' lost chunks).
     */
    public Master(long chunkSizeBytes, ServerConnector connector, Path persistenceDirectory, Consumer<String> log) {
        this(chunkSizeBytes, connector, persistenceDirectory, SNAPSHOT_AFTER_BYTES, log);
    }

    Master(long chunkSizeBytes, ServerConnector connector, Path persistenceDirectory, long snapshotAfterBytes, Consumer<String> log) {
        if (Long.bitCount(chunkSizeBytes) != 1 || chunkSizeBytes < ALIGNMENT) {
            throw ErrorCode.INVALID_ARGUMENT.exception("chunk size must be a power of two >= 64, was " + chunkSizeBytes);
        }
        this.chunkSize = chunkSizeBytes;
        this.connector = connector;
        this.log = log;
        this.journal = persistenceDirectory == null ? null : Journal.open(persistenceDirectory, state, snapshotAfterBytes, log);
        this.record = journal == null ? state : new TeeChanges(state, journal.changes());
    }

    /** The journal starts over from a snapshot once it holds this much. */
    static final long SNAPSHOT_AFTER_BYTES = 64L << 20;

    /** Fails at once if changes can no longer be kept: called before a call changes anything. */
    private void begin() {
        if (journal != null) {
            journal.checkWritable();
        }
    }

    /** Puts the changes of the call ending now on disk before it is answered (and now and then a snapshot). */
    private void commit() {
        if (journal != null) {
            journal.commit();
            if (journal.wantsSnapshot()) {
                try {
                    journal.snapshot(this::describe);
                } catch (RStoreException e) {
                    log.accept(e.getMessage());
                }
            }
        }
    }

    /** Tells the whole durable state as the changes that would rebuild it (a snapshot). */
    private void describe(MetadataChanges to) {
        for (Server s : servers) {
            to.serverJoined(s.id, s.identity, s.durable, s.address, s.shm, s.rdma);
            for (Iterator<Chunk> it = s.pool.descendingIterator(); it.hasNext(); ) {
                Chunk c = it.next();
                to.chunkPooled(s.id, c.chunkId, c.key);
            }
        }
        List<Space> spaces = new ArrayList<>(byId.values());
        spaces.sort(Comparator.comparingLong(sp -> sp.id));
        long last = nextNamespaceId - 1;
        if (last > 0 && !byId.containsKey(last)) { // ids are never reused, even after a restart: a deleted one is told too
            to.namespaceCreated(last, "", 0, 0);
            to.namespaceDeleted(last);
        }
        for (Space sp : spaces) {
            to.namespaceCreated(sp.id, sp.name, sp.stripe, sp.flags);
            for (Chunk c : sp.chunks) {
                to.chunkAppended(sp.id, c.serverId, c.chunkId, c.key, c.mappedFile);
            }
            for (Segment seg : sp.segments.values()) {
                to.segmentPlaced(sp.id, seg.address, seg.length, seg.span);
            }
        }
    }

    /** The journal's size on disk, or -1 without a persistence directory. */
    public synchronized long journalBytes() {
        return journal == null ? -1 : journal.bytes();
    }

    /** Closes the journal; the master takes no more changes. */
    public synchronized void closeJournal() {
        if (journal != null) {
            journal.close();
        }
    }

    // ---- memory servers ----

    /** Registers a memory server; returns its id. */
    public synchronized int registerServer(String address, ChunkService service) {
        try {
            begin();
            int id = servers.size();
            record.serverJoined(id, address, false, address, "", "");
            Server s = servers.get(id);
            s.service = service;
            s.alive = true;
            return id;
        } finally {
            commit();
        }
    }

    @Override
    public int registerServer(ServerRegistration r) {
        if (connector == null) {
            throw ErrorCode.UNSUPPORTED.exception("this master's memory servers run in its own process; it takes no daemons");
        }
        Server known;
        synchronized (this) {
            known = byIdentity(r.identity());
            if (known != null && known.alive && r.controlToken().equals(known.controlToken)) {
                return known.id; // the server's repeated registration: it is here, alive, with its chunks
            }
            if (known == null && r.durable() && !r.chunks().isEmpty()) {
                throw ErrorCode.INVALID_ARGUMENT.exception("the memory server at " + r.address() + " keeps " + r.chunks().size()
                        + " chunk(s) in its persistence directory that this master has no record of; joining would destroy them."
                        + " Start the master with its own persistence directory (rstore.master.persistence.dir), or empty the"
                        + " server's directory to discard them");
            }
            if (known != null) {
                known.alive = false; // a new process of a server this master knew: nothing goes there until it is reconciled
            }
        }
        // connect outside the lock: a slow or unreachable server must not stall everyone else's calls
        ChunkService service = connector.connect(r.address(), r.controlToken());
        try {
            if (service.capacityBytes() != r.capacityBytes()) {
                throw ErrorCode.INVALID_ARGUMENT.exception("the server at " + r.address() + " says it has " + service.capacityBytes()
                        + " bytes, its registration said " + r.capacityBytes() + "; is another server at that address?");
            }
            for (int chunk : unclaimed(known, r.chunks())) { // what no namespace or pool here refers to: never answered, or from before
                service.releaseChunk(chunk);
            }
        } catch (RuntimeException e) {
            close(service);
            throw e;
        }
        synchronized (this) {
            try {
                begin();
                int id = known == null ? servers.size() : known.id;
                record.serverJoined(id, r.identity(), r.durable(), r.address() + "/" + id, r.shm(), r.rdma());
                Server s = servers.get(id);
                if (known != null) {
                    reconcile(s, r.chunks());
                }
                if (s.service != null && s.service != service) {
                    close(s.service);
                }
                s.service = service;
                s.controlToken = r.controlToken();
                s.alive = true;
                return id;
            } finally {
                commit();
            }
        }
    }

    private static void close(ChunkService service) {
        if (service instanceof AutoCloseable connection) {
            try {
                connection.close();
            } catch (Exception ignored) {
                // letting it go anyway
            }
        }
    }

    private Server byIdentity(String identity) {
        for (Server s : servers) {
            if (s.identity.equals(identity)) {
                return s;
            }
        }
        return null;
    }

    /** The chunks a registering server holds that nothing here refers to at their size: all of them for a server this master does not know. */
    private synchronized int[] unclaimed(Server known, List<ServerRegistration.HeldChunk> held) {
        IntOpenHashSet claimed = new IntOpenHashSet();
        if (known != null) {
            for (Space space : byId.values()) {
                for (Chunk c : space.chunks) {
                    if (c.serverId == known.id) {
                        claimed.add(c.chunkId);
                    }
                }
            }
        }
        return held.stream().filter(h -> !claimed.contains(h.id())
                && !(known != null && h.bytes() == chunkSize && known.pool.stream().anyMatch(c -> c.chunkId == h.id())))
                .mapToInt(ServerRegistration.HeldChunk::id).toArray();
    }

    /**
     * A server this master knew is back with {@code held}: the namespaces' chunks it lacks, or
     * has at another size, are lost (reported, never zeroed); those it has under a new key
     * (recycled by a call whose changes never reached the journal) take that key; its pool is
     * what it has of the pool.
     */
    private void reconcile(Server s, List<ServerRegistration.HeldChunk> held) {
        Int2ObjectOpenHashMap<ServerRegistration.HeldChunk> byId = new Int2ObjectOpenHashMap<>();
        held.forEach(h -> byId.put(h.id(), h));
        for (Space space : this.byId.values()) {
            for (int i = 0; i < space.chunks.size(); i++) {
                Chunk c = space.chunks.get(i);
                if (c.serverId != s.id) {
                    continue;
                }
                ServerRegistration.HeldChunk h = byId.get(c.chunkId);
                c.lost = h == null || (!c.mappedFile && h.bytes() != chunkSize);
                if (c.lost) {
                    log.accept("memory server " + s.id + " came back without chunk " + c.chunkId + " of namespace '" + space.name + "' (bytes "
                            + (long) i * chunkSize + " to " + (long) (i + 1) * chunkSize + "): " + (h == null ? "it is missing"
                            : "it has " + h.bytes() + " bytes, not " + chunkSize) + "; its data is lost, and mapping it fails with DATA_LOST");
                } else if (h.key() != c.key) {
                    record.chunkKeyed(s.id, c.chunkId, h.key());
                }
            }
        }
        List<Chunk> pooled = new ArrayList<>(s.pool);
        record.poolCleared(s.id);
        for (int i = pooled.size() - 1; i >= 0; i--) {
            ServerRegistration.HeldChunk h = byId.get(pooled.get(i).chunkId);
            if (h != null && h.bytes() == chunkSize) {
                record.chunkPooled(s.id, h.id(), h.key());
            }
        }
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
            Thread ping = SERVER_CALLS.newThread(() -> {
                try {
                    live.get(index).service.ping();
                    answered[index] = true;
                } catch (RuntimeException e) {
                    // not answered
                }
            });
            ping.start();
            pings.add(ping);
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
                died.add(new ServerInfo(s.id, s.address, s.shm, s.rdma, s.service.capacityBytes(), s.service.usedBytes(), false, s.durable));
            }
        }
        return died;
    }

    /**
     * Gauges of the master's state, registered under {@code rstore.master.}: sessions,
     * namespaces, live and dead memory servers, chunks held by namespaces and pooled, uptime.
     */
    public void registerGauges(MetricRegistry registry) {
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
            lastBeatNanos = Arrays.copyOf(lastBeatNanos, Math.max(serverId + 1, 2 * lastBeatNanos.length));
        }
        lastBeatNanos[serverId] = System.nanoTime();
    }

    @Override
    public synchronized ClusterInfo clusterInfo() {
        long now = System.nanoTime();
        List<Long> ages = new ArrayList<>(servers.size());
        for (Server s : servers) {
            long beat = s.id < lastBeatNanos.length ? lastBeatNanos[s.id] : 0;
            ages.add(beat == 0 ? -1 : (now - beat) / 1_000_000);
        }
        return new ClusterInfo(RStore.VERSION, (now - startedNanos) / 1_000_000, ages);
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
            out.add(new ServerInfo(s.id, s.address, s.shm, s.rdma, s.service == null ? 0 : s.service.capacityBytes(),
                    s.service == null ? 0 : s.service.usedBytes(), s.alive, s.durable));
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

    /** Namespaces now. */
    public synchronized int namespaceCount() {
        return byName.size();
    }

    /** Open client sessions. */
    public synchronized int sessionCount() {
        return sessions.size();
    }

    // ---- namespaces ----

    @Override
    public synchronized NamespaceInfo createNamespace(long session, String name, int flags) {
        session(session);
        if (name == null || name.isBlank() || name.length() > 255) {
            throw ErrorCode.INVALID_ARGUMENT.exception("a namespace name must be 1..255 characters, was '" + name + "'");
        }
        if ((flags & ~NamespaceFlags.DURABLE) != 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("unknown namespace flags " + Integer.toBinaryString(flags) + "; use NamespaceFlags");
        }
        if (byName.containsKey(name)) {
            throw ErrorCode.NAMESPACE_EXISTS.exception("namespace '" + name + "' exists");
        }
        try {
            begin();
            long id = nextNamespaceId;
            record.namespaceCreated(id, name, servers.isEmpty() ? 0 : (int) (id % servers.size()), flags);
            return info(byId.get(id));
        } finally {
            commit();
        }
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
        try {
            begin();
            List<Chunk> chunks = new ArrayList<>(space.chunks);
            record.namespaceDeleted(space.id);
            for (Chunk chunk : chunks) {
                recycle(chunk);
            }
        } finally {
            commit();
        }
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
        try {
            begin();
            reserveChunks(space, chunksFor(bytes));
            return reservedBytes(space);
        } finally {
            commit();
        }
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
        try {
            begin();
            for (long i = 0; i < n; i++) {
                Chunk chunk = space.chunks.getLast();
                record.lastChunkDropped(space.id);
                record.stripeMoved(space.id, chunk.serverId); // rewind, so chunk k goes back to the server it had
                recycle(chunk);
            }
            return reservedBytes(space);
        } finally {
            commit();
        }
    }

    // ---- segments ----

    @Override
    public synchronized SegmentInfo alloc(long session, long namespaceId, long bytes, int flags) {
        session(session);
        Space space = space(namespaceId);
        checkAlloc(bytes, flags);
        try {
            begin();
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
        } finally {
            commit();
        }
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
        if (space.durable()) {
            throw ErrorCode.UNSUPPORTED.exception("namespace '" + space.name + "' is durable; a file's pages mapped privately are not kept");
        }
        long whole = length / chunkSize;
        checkChunkCount(space, chunksFor(length));
        try {
            begin();
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
        } finally {
            commit();
        }
    }

    /** One chunk of a file's pages from the next live server in the stripe. */
    private Chunk mapChunk(Space space, String file, long offset) {
        int count = servers.size();
        for (int attempt = 0; attempt < count; attempt++) {
            Server server = servers.get((space.stripe + attempt) % count);
            if (server.alive) {
                ChunkService.Grant grant = server.service.mapFile(file, offset, chunkSize);
                record.stripeMoved(space.id, (server.id + 1) % count);
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
        try {
            begin();
            if (end > reserved) {
                if ((flags & AllocFlags.GROW) == 0) {
                    throw ErrorCode.INSUFFICIENT_RESERVATION.exception("[" + address + ", " + end + ") lies beyond the "
                            + reserved + " bytes namespace '" + space.name + "' reserved");
                }
                reserveChunks(space, chunksFor(end - reserved));
            }
            return place(space, address, bytes, span, flags);
        } finally {
            commit();
        }
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
        try {
            begin();
            record.segmentFreed(space.id, address);
        } finally {
            commit();
        }
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
        SegmentInfo located = locate(space, seg); // first: no reference taken on what cannot be mapped
        seg.mapRefs++;
        s.refs.computeIfAbsent(namespaceId, k -> new Long2IntOpenHashMap()).addTo(address, 1);
        return located;
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

    // ---- durability ----

    /** One chunk's part of a range to persist, and the server that holds it. */
    private record Piece(Server server, int chunkId, long offset, long length) {
    }

    @Override
    public void persist(long session, long namespaceId, long address, long length) {
        List<Piece> pieces = new ArrayList<>();
        synchronized (this) {
            session(session);
            Space space = space(namespaceId);
            Map.Entry<Long, Segment> at = space.segments.floorEntry(address);
            if (length <= 0 || at == null || address + length > at.getValue().address + at.getValue().length || address + length < address) {
                throw ErrorCode.OUT_OF_BOUNDS.exception("[" + address + ", " + address + " + " + length + ") of namespace '" + space.name
                        + "' is not within one segment");
            }
            locate(space, at.getValue()); // DATA_LOST if part of it is gone
            forEachPiece(space, address, length, (chunk, offset, n) -> {
                Server server = servers.get(chunk.serverId);
                if (!server.durable) {
                    throw ErrorCode.UNSUPPORTED.exception("bytes of namespace '" + space.name + "' lie on memory server " + server.id
                            + ", which keeps them in memory only (no rstore.persistence.dir); create the namespace with NamespaceFlags.DURABLE"
                            + " to have only servers with one");
                }
                if (!server.alive) {
                    throw ErrorCode.SERVER_UNAVAILABLE.exception("memory server " + server.id + ", holding bytes of namespace '" + space.name
                            + "', is not serving");
                }
                pieces.add(new Piece(server, chunk.chunkId, offset, n));
            });
        }
        // outside the lock: an msync takes as long as the disk does; each server's pieces in turn, the servers at once
        Map<Server, List<Piece>> byServer = new LinkedHashMap<>();
        pieces.forEach(p -> byServer.computeIfAbsent(p.server(), k -> new ArrayList<>()).add(p));
        List<Future<?>> calls = new ArrayList<>();
        try (ExecutorService each = Executors.newThreadPerTaskExecutor(SERVER_CALLS)) {
            for (List<Piece> own : byServer.values()) {
                calls.add(each.submit(() -> own.forEach(p -> p.server().service.persist(p.chunkId(), p.offset(), p.length()))));
            }
            for (Future<?> call : calls) {
                try {
                    call.get();
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : ErrorCode.UNKNOWN.exception(String.valueOf(e.getCause()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw ErrorCode.TIMED_OUT.exception("interrupted while persisting");
                }
            }
        }
    }

    /** The changes, made to this master's maps: by the live calls (through {@link #record}) and by a replayed journal. */
    private final class StateChanges implements MetadataChanges {

        @Override
        public void serverJoined(int id, String identity, boolean durable, String address, String shm, String rdma) {
            if (id < servers.size()) {
                Server s = servers.get(id);
                s.address = address;
                s.shm = shm;
                s.rdma = rdma;
            } else if (id == servers.size()) {
                servers.add(new Server(id, identity, durable, address, shm, rdma));
            } else {
                throw new IllegalStateException("server " + id + " joined after " + servers.size() + " servers");
            }
        }

        @Override
        public void namespaceCreated(long id, String name, int stripe, int flags) {
            Space space = new Space(id, name, stripe, flags);
            byName.put(name, space);
            byId.put(id, space);
            nextNamespaceId = Math.max(nextNamespaceId, id + 1);
        }

        @Override
        public void namespaceDeleted(long id) {
            Space space = byId.remove(id);
            byName.remove(space.name);
        }

        @Override
        public void chunkAppended(long namespace, int server, int chunkId, long key, boolean mappedFile) {
            Space space = byId.get(namespace);
            long start = reservedBytes(space);
            space.chunks.add(new Chunk(server, chunkId, key, mappedFile));
            addFree(space, start, start + chunkSize);
        }

        @Override
        public void lastChunkDropped(long namespace) {
            Space space = byId.get(namespace);
            long end = reservedBytes(space);
            carve(space, end - chunkSize, end);
            space.chunks.removeLast();
        }

        @Override
        public void stripeMoved(long namespace, int stripe) {
            byId.get(namespace).stripe = stripe;
        }

        @Override
        public void chunkPooled(int server, int chunkId, long key) {
            servers.get(server).pool.push(new Chunk(server, chunkId, key, false));
        }

        @Override
        public void pooledChunkTaken(int server) {
            servers.get(server).pool.pop();
        }

        @Override
        public void poolCleared(int server) {
            servers.get(server).pool.clear();
        }

        @Override
        public void chunkKeyed(int server, int chunkId, long key) {
            for (Space space : byId.values()) {
                for (Chunk c : space.chunks) {
                    if (c.serverId == server && c.chunkId == chunkId) {
                        c.key = key;
                    }
                }
            }
        }

        @Override
        public void segmentPlaced(long namespace, long address, long length, long span) {
            Space space = byId.get(namespace);
            carve(space, address, address + span);
            space.segments.put(address, new Segment(address, length, span));
        }

        @Override
        public void segmentFreed(long namespace, long address) {
            Space space = byId.get(namespace);
            Segment seg = space.segments.remove(address);
            addFree(space, address, address + seg.span);
        }
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
        record.segmentPlaced(space.id, address, length, span);
        Segment seg = space.segments.get(address);
        // a server takes a chunk's memory from the system as segments land in it, never on the data path: zeroing faults
        // the range in, else the server is asked to (a file's pages are the file's)
        forEachPiece(space, address, length, (chunk, offset, n) -> {
            if ((flags & AllocFlags.ZERO) != 0) {
                servers.get(chunk.serverId).service.zero(chunk.chunkId, offset, n);
            } else if (!chunk.mappedFile) {
                servers.get(chunk.serverId).service.populate(chunk.chunkId, offset, n);
            }
        });
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
            if (c.lost) {
                throw ErrorCode.DATA_LOST.exception("bytes " + (long) i * chunkSize + " to " + (long) (i + 1) * chunkSize + " of namespace '"
                        + space.name + "' were lost: memory server " + c.serverId + " came back without them; free the segment at "
                        + seg.address + " or delete the namespace");
            }
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
        for (Chunk c : chunks) {
            record.chunkAppended(space.id, c.serverId, c.chunkId, c.key, c.mappedFile);
        }
    }

    /** Undoes taking chunks that no namespace saw: pooled ones go back untouched, a file's pages are released. */
    private void giveBack(List<Chunk> chunks) {
        for (Chunk chunk : chunks) {
            if (chunk.mappedFile) {
                recycle(chunk);
            } else {
                record.chunkPooled(chunk.serverId, chunk.chunkId, chunk.key);
            }
        }
    }

    private Chunk takeChunk(Space space) {
        int count = servers.size();
        if (count == 0) {
            throw ErrorCode.OUT_OF_MEMORY.exception("no memory server is registered with the master");
        }
        RStoreException full = null; // a server whose disk is full: the next one may have room
        for (int attempt = 0; attempt < count; attempt++) {
            Server server = servers.get((space.stripe + attempt) % count);
            if (!server.alive || (space.durable() && !server.durable)) {
                continue;
            }
            Chunk chunk = server.pool.peek();
            if (chunk != null) {
                record.pooledChunkTaken(server.id);
            }
            if (chunk == null && server.service.usedBytes() + chunkSize <= server.service.capacityBytes()) {
                ChunkService.Grant grant;
                try {
                    grant = server.service.allocateChunk(chunkSize);
                } catch (RStoreException e) {
                    if (e.code() == ErrorCode.NO_SPACE) {
                        full = ErrorCode.NO_SPACE.exception("memory server " + server.id + ": " + e.detail());
                        continue;
                    }
                    if (e.code() != ErrorCode.SERVER_UNAVAILABLE && e.code() != ErrorCode.TIMED_OUT) {
                        throw e;
                    }
                    server.alive = false; // found dead before the heartbeat did: the next server takes the chunk
                    continue;
                }
                chunk = new Chunk(server.id, grant.chunkId(), grant.key(), false);
            }
            if (chunk != null) {
                record.stripeMoved(space.id, (server.id + 1) % count);
                return chunk;
            }
        }
        if (full != null) {
            throw full;
        }
        throw ErrorCode.OUT_OF_MEMORY.exception("no live memory server" + (space.durable() ? " with a persistence directory" : "")
                + " has a free chunk of " + chunkSize + " bytes for " + (space.durable() ? "durable " : "") + "namespace '" + space.name + "'");
    }

    /** Back to its server's pool with a new key, so credentials handed out before are dead; a file's pages are released. */
    private void recycle(Chunk chunk) {
        Server server = servers.get(chunk.serverId);
        if (!server.alive || chunk.lost) {
            return; // a server that rejoins with it releases it then
        }
        long key;
        try {
            if (chunk.mappedFile) {
                server.service.releaseChunk(chunk.chunkId);
                return;
            }
            key = server.service.recycle(chunk.chunkId);
        } catch (RStoreException e) {
            if (e.code() != ErrorCode.SERVER_UNAVAILABLE && e.code() != ErrorCode.TIMED_OUT) {
                throw e;
            }
            server.alive = false; // its chunks are lost with it; the namespace lets go of this one anyway
            return;
        }
        record.chunkPooled(chunk.serverId, chunk.chunkId, key);
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
        return new NamespaceInfo(space.id, space.name, reservedBytes(space), allocated, space.segments.size(), mapped, space.flags);
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

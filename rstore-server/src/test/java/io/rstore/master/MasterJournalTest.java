package io.rstore.master;

import io.rstore.AllocFlags;
import io.rstore.ErrorCode;
import io.rstore.NamespaceFlags;
import io.rstore.RStoreException;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerRegistration;
import io.rstore.server.MemoryServer;
import io.rstore.server.ShmChunkFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A master with a persistence directory: what a restarted one rebuilds from its journal
 * (and snapshots) is what the first one answered, told through the calls' own results; a
 * torn tail loses only the unanswered call, a corrupt record stops the start with its
 * offset; memory servers rejoin with their chunks, and what they lack is reported.
 */
class MasterJournalTest {
    private static final long CHUNK = 1 << 16;

    @TempDir
    Path dir;

    /** Memory servers the masters reach by address, as a daemon's connector would. */
    private final Map<String, MemoryServer> servers = new HashMap<>();
    private final List<Master> masters = new ArrayList<>();
    private final List<String> logged = new ArrayList<>();

    @AfterEach
    void close() {
        masters.forEach(Master::closeJournal);
        servers.values().forEach(MemoryServer::close);
    }

    private Master master(long snapshotAfterBytes) {
        Master m = new Master(CHUNK, (address, token) -> servers.get(address), dir.resolve("master"), snapshotAfterBytes, logged::add);
        masters.add(m);
        return m;
    }

    private Master restart(Master old, long snapshotAfterBytes) {
        old.closeJournal();
        return master(snapshotAfterBytes);
    }

    private static int join(Master m, String address, MemoryServer server, String identity) {
        return m.registerServer(new ServerRegistration(address, "", "", server.capacityBytes(), "token-" + identity, identity, server.durable(),
                server.chunks()));
    }

    private void start(Master m, int count) {
        for (int i = 0; i < count; i++) {
            String address = "rstore+tcp://10.0.0." + i + ":7402";
            servers.computeIfAbsent(address, a -> new MemoryServer(64 * CHUNK));
            assertEquals(i, join(m, address, servers.get(address), "server-" + i));
        }
    }

    /** Every namespace, and every segment of each (with its chunks' places and keys), as the master answers them. */
    private static String picture(Master m, long session, List<Long> addresses) {
        StringBuilder out = new StringBuilder();
        for (NamespaceInfo ns : m.namespaces(session)) {
            out.append(ns).append('\n');
            for (long address : addresses) {
                try {
                    out.append("  ").append(m.lookup(session, ns.id(), address)).append('\n');
                } catch (RStoreException e) {
                    out.append("  ").append(address).append(": ").append(e.code()).append('\n');
                }
            }
        }
        return out.toString();
    }

    /** A history of every kind of change: namespaces made and deleted, chunks reserved, released and pooled, segments placed and freed. */
    private static List<Long> history(Master m, long session) {
        List<Long> addresses = new ArrayList<>();
        NamespaceInfo a = m.createNamespace(session, "a", 0);
        NamespaceInfo b = m.createNamespace(session, "b", 0);
        m.reserve(session, a.id(), 5 * CHUNK);
        addresses.add(m.alloc(session, a.id(), 100, AllocFlags.ZERO).address());
        addresses.add(m.alloc(session, a.id(), 2 * CHUNK + 1, AllocFlags.NONE).address());
        addresses.add(m.alloc(session, b.id(), 3 * CHUNK, AllocFlags.GROW).address());
        addresses.add(m.allocAt(session, b.id(), 8 * CHUNK, 64, AllocFlags.GROW).address());
        m.free(session, a.id(), addresses.get(0));
        m.release(session, a.id(), CHUNK);
        NamespaceInfo c = m.createNamespace(session, "c", 0);
        m.alloc(session, c.id(), CHUNK, AllocFlags.GROW);
        m.deleteNamespace(session, "c"); // its chunk goes to a pool, and the next reservation takes it
        addresses.add(m.alloc(session, a.id(), 4 * CHUNK, AllocFlags.GROW).address());
        return addresses;
    }

    @Test
    void shouldRebuildWhatItAnsweredAfterARestartWithTheServersRejoining() {
        Master first = master(Long.MAX_VALUE);
        start(first, 2);
        long session = first.openSession("t");
        List<Long> addresses = history(first, session);
        String before = picture(first, session, addresses);

        Master second = restart(first, Long.MAX_VALUE);
        long again = second.openSession("t");
        assertEquals(2, second.servers().size());
        assertTrue(second.servers().stream().noneMatch(s -> s.alive()), "servers are not alive before they rejoin");
        start(second, 2); // same identities: same ids, chunks reconciled
        assertEquals(before, picture(second, again, addresses));
        assertTrue(logged.isEmpty(), logged.toString());

        // it goes on from there: a new namespace takes a new id, new segments do not overlap old ones
        NamespaceInfo d = second.createNamespace(again, "d", 0);
        assertTrue(second.namespaces(again).stream().filter(ns -> !ns.name().equals("d")).allMatch(ns -> ns.id() < d.id()));
        long a = second.joinNamespace(again, "a").id();
        SegmentInfo more = second.alloc(again, a, CHUNK, AllocFlags.GROW);
        for (long address : List.of(addresses.get(1), addresses.get(4))) {
            SegmentInfo old = second.lookup(again, a, address);
            assertTrue(more.address() >= old.address() + old.length() || more.address() + more.length() <= old.address());
        }
    }

    @Test
    void shouldRebuildTheSameFromSnapshotsAsFromTheJournal() throws IOException {
        Master first = master(512); // a snapshot every few calls
        start(first, 2);
        long session = first.openSession("t");
        List<Long> addresses = history(first, session);
        String before = picture(first, session, addresses);
        assertTrue(Files.exists(dir.resolve("master").resolve(Journal.SNAPSHOT)), "a snapshot was written");
        for (Path kept : List.of(dir.resolve("master"), dir.resolve("master").resolve(Journal.SNAPSHOT), dir.resolve("master").resolve(Journal.JOURNAL))) {
            String mode = java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(kept));
            assertTrue(mode.endsWith("------"), kept + " holds chunk keys: the owner's alone, was " + mode);
        }
        assertTrue(first.journalBytes() < 512 + 256, "the journal started over: " + first.journalBytes());

        Master second = restart(first, 512);
        long again = second.openSession("t");
        start(second, 2);
        assertEquals(before, picture(second, again, addresses));
    }

    @Test
    void shouldCutATornLastRecordAndKeepEveryAnsweredCall() throws IOException {
        Master first = master(Long.MAX_VALUE);
        start(first, 1);
        long session = first.openSession("t");
        NamespaceInfo ns = first.createNamespace(session, "n", 0);
        List<Long> addresses = new ArrayList<>();
        List<String> pictures = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            addresses.add(first.alloc(session, ns.id(), 1000 + i, AllocFlags.GROW).address());
            pictures.add(picture(first, session, addresses));
            sizes.add(first.journalBytes());
        }
        first.closeJournal();
        Path journal = dir.resolve("master").resolve(Journal.JOURNAL);
        try (FileChannel file = FileChannel.open(journal, StandardOpenOption.WRITE)) {
            file.truncate(sizes.get(2) + 7); // the master died writing the fourth call's changes: it was never answered
        }
        Master second = master(Long.MAX_VALUE);
        assertEquals(sizes.get(2), Files.size(journal), "the torn record is cut off");
        start(second, 1);
        long again = second.openSession("t");
        assertEquals(pictures.get(2), picture(second, again, addresses.subList(0, 3)));
        for (long unanswered : addresses.subList(3, 5)) {
            assertEquals(ErrorCode.INVALID_ADDRESS, assertThrows(RStoreException.class, () -> second.lookup(again, ns.id(), unanswered)).code());
        }
        assertTrue(logged.stream().anyMatch(l -> l.contains("torn record at offset " + sizes.get(2))), logged.toString());
    }

    @Test
    void shouldRefuseToStartOnACorruptRecordAndSayWhere() throws IOException {
        Master first = master(Long.MAX_VALUE);
        start(first, 1);
        long session = first.openSession("t");
        NamespaceInfo ns = first.createNamespace(session, "n", 0);
        first.alloc(session, ns.id(), 100, AllocFlags.GROW);
        long damaged = first.journalBytes();
        first.alloc(session, ns.id(), 200, AllocFlags.NONE);
        first.alloc(session, ns.id(), 300, AllocFlags.NONE);
        first.closeJournal();
        Path journal = dir.resolve("master").resolve(Journal.JOURNAL);
        byte[] bytes = Files.readAllBytes(journal);
        bytes[(int) damaged + 20] ^= 0x40; // one bit of the second alloc's record, with a whole record after it
        Files.write(journal, bytes);
        RStoreException e = assertThrows(RStoreException.class, () -> master(Long.MAX_VALUE));
        assertTrue(e.getMessage().contains("corrupt at offset " + damaged) && e.getMessage().contains(journal.toString()), e.getMessage());
    }

    /** A snapshot that cannot be written (here: its temporary name is taken by a directory) costs no call, and is not retried on every call. */
    @Test
    void shouldGoOnJournalingWhenASnapshotCannotBeWritten() throws IOException {
        Files.createDirectories(dir.resolve("master").resolve(Journal.SNAPSHOT + ".new"));
        Master m = master(2048);
        start(m, 1);
        long session = m.openSession("t");
        NamespaceInfo ns = m.createNamespace(session, "n", 0);
        List<Long> addresses = new ArrayList<>();
        for (int i = 0; i < 100; i++) { // about 60 bytes of journal each: past the snapshot size three times
            addresses.add(m.alloc(session, ns.id(), 64, AllocFlags.GROW).address());
        }
        long failures = logged.stream().filter(l -> l.contains("cannot write a snapshot")).count();
        assertTrue(failures >= 1 && failures <= 3, failures + " snapshot attempts for 100 calls: " + logged);
        String before = picture(m, session, addresses);
        Master again = restart(m, 2048);
        start(again, 1);
        assertEquals(before, picture(again, again.openSession("t"), addresses), "the journal kept every call");
    }

    @Test
    void shouldLetOnlyOneMasterUseAPersistenceDirectory() {
        master(Long.MAX_VALUE);
        RStoreException e = assertThrows(RStoreException.class, () -> master(Long.MAX_VALUE));
        assertTrue(e.getMessage().contains("another master holds the persistence directory"), e.getMessage());
    }

    @Test
    void shouldReportChunksAServerCameBackWithoutAndTakeKeysOfRecyclesItNeverJournaled(@TempDir Path serverDirectory) {
        Master first = master(Long.MAX_VALUE);
        MemoryServer durable = new MemoryServer(64 * CHUNK, ShmChunkFiles.persistent(serverDirectory));
        servers.put("rstore+tcp://10.0.0.9:7402", durable);
        String identity = durable.identity();
        assertEquals(0, join(first, "rstore+tcp://10.0.0.9:7402", durable, identity));
        long session = first.openSession("t");
        NamespaceInfo ns = first.createNamespace(session, "n", NamespaceFlags.DURABLE);
        SegmentInfo kept = first.alloc(session, ns.id(), CHUNK, AllocFlags.GROW);
        SegmentInfo lost = first.alloc(session, ns.id(), CHUNK, AllocFlags.GROW);
        SegmentInfo rekeyed = first.alloc(session, ns.id(), CHUNK, AllocFlags.GROW);
        int lostChunk = lost.chunks().get(0).chunkId();
        int rekeyedChunk = rekeyed.chunks().get(0).chunkId();

        Master second = restart(first, Long.MAX_VALUE);
        durable.close(); // the server stops too, and comes back with one chunk file gone and one recycled
        MemoryServer back = new MemoryServer(64 * CHUNK, ShmChunkFiles.persistent(serverDirectory));
        back.releaseChunk(lostChunk);
        long newKey = back.recycle(rekeyedChunk);
        servers.put("rstore+tcp://10.0.0.9:7402", back);
        assertEquals(0, join(second, "rstore+tcp://10.0.0.9:7402", back, identity));
        long again = second.openSession("t");
        assertEquals(kept, second.lookup(again, ns.id(), kept.address()));
        RStoreException e = assertThrows(RStoreException.class, () -> second.map(again, ns.id(), lost.address()));
        assertEquals(ErrorCode.DATA_LOST, e.code());
        assertTrue(logged.stream().anyMatch(l -> l.contains("without chunk " + lostChunk) && l.contains("namespace 'n'")), logged.toString());
        assertEquals(newKey, second.lookup(again, ns.id(), rekeyed.address()).chunks().get(0).key());
        assertNotEquals(rekeyed.chunks().get(0).key(), newKey);
        second.free(again, ns.id(), lost.address()); // what was lost can be let go
    }

    @Test
    void shouldRefuseADurableServerWithChunksItHasNoRecordOf(@TempDir Path serverDirectory) {
        MemoryServer durable = new MemoryServer(64 * CHUNK, ShmChunkFiles.persistent(serverDirectory));
        durable.allocateChunk(CHUNK);
        servers.put("rstore+tcp://10.0.0.9:7402", durable);
        Master m = master(Long.MAX_VALUE);
        RStoreException e = assertThrows(RStoreException.class, () -> join(m, "rstore+tcp://10.0.0.9:7402", durable, durable.identity()));
        assertTrue(e.getMessage().contains("that this master has no record of"), e.getMessage());
        assertEquals(1, durable.chunks().size(), "nothing was released");
    }

    @Test
    void shouldGiveDurableNamespacesChunksOfDurableServersOnly(@TempDir Path serverDirectory) {
        Master m = master(Long.MAX_VALUE);
        start(m, 1); // in memory only
        long session = m.openSession("t");
        NamespaceInfo ns = m.createNamespace(session, "n", NamespaceFlags.DURABLE);
        assertTrue(ns.durable() && !m.createNamespace(session, "plain", 0).durable(), "the info says which namespaces are durable");
        RStoreException e = assertThrows(RStoreException.class, () -> m.reserve(session, ns.id(), CHUNK));
        assertEquals(ErrorCode.OUT_OF_MEMORY, e.code());
        assertTrue(e.getMessage().contains("with a persistence directory"), e.getMessage());
        NamespaceInfo plain = m.createNamespace(session, "p", 0);
        SegmentInfo volatileSegment = m.alloc(session, plain.id(), 64, AllocFlags.GROW);
        RStoreException unsupported = assertThrows(RStoreException.class, () -> m.persist(session, plain.id(), volatileSegment.address(), 64));
        assertEquals(ErrorCode.UNSUPPORTED, unsupported.code());

        MemoryServer durable = new MemoryServer(64 * CHUNK, ShmChunkFiles.persistent(serverDirectory));
        servers.put("rstore+tcp://10.0.0.9:7402", durable);
        assertEquals(1, join(m, "rstore+tcp://10.0.0.9:7402", durable, durable.identity()));
        SegmentInfo segment = m.alloc(session, ns.id(), 3 * CHUNK, AllocFlags.GROW);
        assertTrue(segment.chunks().stream().allMatch(c -> c.serverId() == 1));
        m.persist(session, ns.id(), segment.address() + 10, 2 * CHUNK);
        RStoreException outside = assertThrows(RStoreException.class, () -> m.persist(session, ns.id(), segment.address(), 3 * CHUNK + 1));
        assertEquals(ErrorCode.OUT_OF_BOUNDS, outside.code());
    }
}

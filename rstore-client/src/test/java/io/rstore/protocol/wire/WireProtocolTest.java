package io.rstore.protocol.wire;

import io.rstore.ErrorCode;
import io.rstore.RStoreException;
import io.rstore.protocol.ChunkLocation;
import io.rstore.protocol.ChunkService;
import io.rstore.protocol.ClientInfo;
import io.rstore.protocol.MasterProtocol;
import io.rstore.protocol.NamespaceInfo;
import io.rstore.protocol.SegmentInfo;
import io.rstore.protocol.ServerInfo;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WireProtocolTest {

    /** Records every call's arguments and answers with fixed, distinctive values. */
    private static final class Recording implements MasterProtocol {
        final List<String> calls = new ArrayList<>();
        static final NamespaceInfo NS = new NamespaceInfo(7, "graphs/ünïcode", 1L << 40, 12345, 3, 1, 1);
        static final SegmentInfo SEG = new SegmentInfo(7, 4096, 3 << 20, 1 << 20,
                List.of(new ChunkLocation(0, 1, 9, -5), new ChunkLocation(1, 0, 2, Integer.MAX_VALUE), new ChunkLocation(2, 1, 10, 0x7ead)));
        static final List<ServerInfo> SERVERS = List.of(new ServerInfo(0, "inproc://a/0", "", "", 8L << 30, 1 << 24, true, false),
                new ServerInfo(1, "rstore+tcp://10.0.0.2:7401", "5f1c9a2e-0b7d-4e61-9a53-2a7d1f0c3e44:/dev/shm/rstore-server-17", "disni://10.0.0.2:7410", 4L << 30, 0, false, true));

        @Override
        public long openSession(String clientName) {
            calls.add("openSession " + clientName);
            return Long.MAX_VALUE - 1;
        }

        @Override
        public void closeSession(long session) {
            calls.add("closeSession " + session);
        }

        @Override
        public long chunkSizeBytes() {
            calls.add("chunkSize");
            return 1 << 24;
        }

        @Override
        public List<ServerInfo> servers() {
            calls.add("servers");
            return SERVERS;
        }

        @Override
        public List<ClientInfo> clients() {
            calls.add("clients");
            return List.of(new ClientInfo(3, "carafe worker 2", 17), new ClientInfo(Long.MAX_VALUE, "", 0));
        }

        @Override
        public io.rstore.protocol.ClusterInfo clusterInfo() {
            calls.add("clusterInfo");
            return new io.rstore.protocol.ClusterInfo("rstore 9.9", 12_345, List.of(-1L, 250L));
        }

        @Override
        public int registerServer(io.rstore.protocol.ServerRegistration r) {
            calls.add("register " + r);
            return 41;
        }

        @Override
        public void persist(long session, long namespaceId, long address, long length) {
            calls.add("persist " + session + " " + namespaceId + " " + address + " " + length);
        }

        @Override
        public NamespaceInfo createNamespace(long session, String name, int flags) {
            calls.add("create " + session + " " + name + " " + flags);
            return NS;
        }

        @Override
        public NamespaceInfo joinNamespace(long session, String name) {
            calls.add("join " + session + " " + name);
            return NS;
        }

        @Override
        public void deleteNamespace(long session, String name) {
            calls.add("delete " + session + " " + name);
        }

        @Override
        public NamespaceInfo namespaceInfo(long session, long namespaceId) {
            calls.add("info " + session + " " + namespaceId);
            return NS;
        }

        @Override
        public List<NamespaceInfo> namespaces(long session) {
            calls.add("namespaces " + session);
            return List.of(NS, new NamespaceInfo(8, "", 0, 0, 0, 0, 0));
        }

        @Override
        public long reserve(long session, long namespaceId, long bytes) {
            calls.add("reserve " + session + " " + namespaceId + " " + bytes);
            return -2;
        }

        @Override
        public long release(long session, long namespaceId, long bytes) {
            calls.add("release " + session + " " + namespaceId + " " + bytes);
            return 3;
        }

        @Override
        public SegmentInfo alloc(long session, long namespaceId, long bytes, int flags) {
            calls.add("alloc " + session + " " + namespaceId + " " + bytes + " " + flags);
            return SEG;
        }

        @Override
        public SegmentInfo allocFromFile(long session, long namespaceId, String file, long offset, long length) {
            calls.add("allocFromFile " + session + " " + namespaceId + " " + file + " " + offset + " " + length);
            return SEG;
        }

        @Override
        public SegmentInfo allocAt(long session, long namespaceId, long address, long bytes, int flags) {
            calls.add("allocAt " + session + " " + namespaceId + " " + address + " " + bytes + " " + flags);
            return SEG;
        }

        @Override
        public void free(long session, long namespaceId, long address) {
            calls.add("free " + session + " " + namespaceId + " " + address);
        }

        @Override
        public SegmentInfo lookup(long session, long namespaceId, long address) {
            calls.add("lookup " + session + " " + namespaceId + " " + address);
            return SEG;
        }

        @Override
        public SegmentInfo map(long session, long namespaceId, long address) {
            calls.add("map " + session + " " + namespaceId + " " + address);
            return SEG;
        }

        @Override
        public void unmap(long session, long namespaceId, long address) {
            calls.add("unmap " + session + " " + namespaceId + " " + address);
            throw ErrorCode.SEGMENT_IN_USE.exception("not mapped by session " + session);
        }
    }

    private final Recording master = new Recording();
    private final MasterService service = new MasterService(master);
    private final List<ByteBuffer> requests = new ArrayList<>();
    private final RemoteMaster remote = new RemoteMaster(frame -> {
        ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).put(frame).flip();
        requests.add(copy.duplicate());
        return service.handle(copy);
    });

    @Test
    void shouldRoundTripEveryCallWithItsArgumentsAndResult() {
        assertEquals(Long.MAX_VALUE - 1, remote.openSession("client ☕"));
        remote.closeSession(-9);
        assertEquals(1 << 24, remote.chunkSizeBytes());
        assertEquals(Recording.SERVERS, remote.servers());
        assertEquals(Recording.NS, remote.createNamespace(1, "a/b", 1));
        assertEquals(Recording.NS, remote.joinNamespace(2, "a/c"));
        remote.deleteNamespace(3, "a/d");
        assertEquals(Recording.NS, remote.namespaceInfo(4, 77));
        assertEquals(List.of(Recording.NS, new NamespaceInfo(8, "", 0, 0, 0, 0, 0)), remote.namespaces(5));
        assertEquals(-2, remote.reserve(6, 7, Long.MAX_VALUE));
        assertEquals(3, remote.release(6, 7, 1));
        assertEquals(Recording.SEG, remote.alloc(6, 7, 100, 3));
        assertEquals(Recording.SEG, remote.allocAt(6, 7, 64, 100, 2));
        assertEquals(Recording.SEG, remote.allocFromFile(6, 7, "/tmp/g ☕.carafe", 1L << 24, 3L << 24));
        remote.free(6, 7, 64);
        assertEquals(Recording.SEG, remote.lookup(6, 7, 128));
        assertEquals(Recording.SEG, remote.map(6, 7, 192));
        assertEquals(List.of(new ClientInfo(3, "carafe worker 2", 17), new ClientInfo(Long.MAX_VALUE, "", 0)), remote.clients());
        assertEquals(new io.rstore.protocol.ClusterInfo("rstore 9.9", 12_345, List.of(-1L, 250L)), remote.clusterInfo());
        master.calls.remove(master.calls.size() - 1);
        io.rstore.protocol.ServerRegistration registration = new io.rstore.protocol.ServerRegistration("rstore+tcp://10.0.0.3:7401",
                "b:/dev/shm/x", "emulated://10.0.0.3:7410", 1L << 34, "c0ffee", "id ☕", true,
                List.of(new io.rstore.protocol.ServerRegistration.HeldChunk(3, -1L, 1L << 24),
                        new io.rstore.protocol.ServerRegistration.HeldChunk(Integer.MAX_VALUE, Long.MIN_VALUE, 1)));
        assertEquals(41, remote.registerServer(registration));
        remote.persist(6, 7, 1L << 40, 4096);
        assertEquals(List.of("openSession client ☕", "closeSession -9", "chunkSize", "servers", "create 1 a/b 1", "join 2 a/c",
                "delete 3 a/d", "info 4 77", "namespaces 5", "reserve 6 7 " + Long.MAX_VALUE, "release 6 7 1", "alloc 6 7 100 3",
                "allocAt 6 7 64 100 2", "allocFromFile 6 7 /tmp/g ☕.carafe 16777216 50331648", "free 6 7 64", "lookup 6 7 128", "map 6 7 192",
                "clients", "register " + registration, "persist 6 7 1099511627776 4096"), master.calls);
    }

    /** A network client must not have the master's process open files for it. */
    @Test
    void shouldRefuseAllocFromFileOnANetworkConnection() {
        FrameHandler connection = service.connection();
        RemoteMaster overNetwork = new RemoteMaster(frame -> {
            ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).put(frame).flip();
            return connection.handle(copy);
        });
        RStoreException e = assertThrows(RStoreException.class,
                () -> overNetwork.allocFromFile(6, 7, "/etc/shadow", 0, 1L << 24));
        assertEquals(ErrorCode.UNSUPPORTED, e.code());
        assertTrue(master.calls.isEmpty(), "the master never saw the call: " + master.calls);
    }

    @Test
    void shouldCarryAnEmptyClientNameAsNone() {
        remote.openSession(null);
        assertEquals("openSession null", master.calls.getFirst());
    }

    @Test
    void shouldCarryErrorsWithTheirCodeAndMessage() {
        RStoreException e = assertThrows(RStoreException.class, () -> remote.unmap(11, 12, 13));
        assertEquals(ErrorCode.SEGMENT_IN_USE, e.code());
        assertEquals("not mapped by session 11", e.detail());
        assertEquals("unmap 11 12 13", master.calls.getLast());
    }

    @Test
    void shouldWriteTheHeaderAsTheSpecSays() {
        remote.chunkSizeBytes();
        ByteBuffer frame = requests.getFirst().order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(Frames.HEADER, frame.remaining(), "a call without arguments is a bare header");
        assertEquals(Frames.HEADER - 4, frame.getInt(0));
        assertEquals(('R' << 8) | 'S', frame.getShort(4) & 0xFFFF, "magic 'RS'");
        assertEquals(1, frame.get(6), "version");
        assertEquals(1, frame.get(7), "kind: request");
        assertEquals(MasterCalls.CHUNK_SIZE, frame.getShort(8));
        assertEquals(1, frame.getLong(10), "first correlation id");
    }

    @Test
    void shouldAnswerEveryMalformedFrameWithAnErrorAndNothingElse() {
        Random random = new Random(2026);
        remote.alloc(1, 2, 3, 0);
        remote.createNamespace(1, "name", 0);
        remote.servers();
        List<ByteBuffer> valid = List.copyOf(requests);
        int invalid = 0;
        for (int i = 0; i < 20_000; i++) {
            ByteBuffer frame;
            if (i % 2 == 0) { // random bytes, sometimes with a plausible length prefix
                byte[] bytes = new byte[random.nextInt(64)];
                random.nextBytes(bytes);
                frame = ByteBuffer.wrap(bytes);
                if (bytes.length >= 4 && random.nextBoolean()) {
                    frame.order(ByteOrder.LITTLE_ENDIAN).putInt(0, bytes.length - 4);
                }
            } else { // a valid frame with a few bytes flipped, cut short or extended
                ByteBuffer base = valid.get(random.nextInt(valid.size()));
                byte[] bytes = new byte[base.remaining()];
                base.duplicate().get(bytes);
                int mutation = random.nextInt(3);
                if (mutation == 0) {
                    for (int k = 0; k < 1 + random.nextInt(3); k++) {
                        bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
                    }
                } else if (mutation == 1) {
                    bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
                } else {
                    bytes = java.util.Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(8));
                }
                frame = ByteBuffer.wrap(bytes);
            }
            ByteBuffer answer = service.handle(frame);
            Frames.Header header = Frames.read(answer); // the answer itself is always well-formed
            if (header.kind() == Frames.ERROR) {
                int code = header.body().getInt();
                assertTrue(code == ErrorCode.INVALID_FRAME.code() || code == ErrorCode.INVALID_ARGUMENT.code() || code == ErrorCode.UNKNOWN.code(),
                        "error code " + ErrorCode.of(code));
                header.body().getString();
                header.body().expectEnd();
                invalid++;
            }
        }
        assertTrue(invalid > 15_000, "most garbage is refused: " + invalid);
    }

    @Test
    void shouldRefuseAnswersThatDoNotMatchTheCall() {
        RemoteMaster confused = new RemoteMaster(frame -> {
            WireBuffer out = Frames.start(Frames.RESPONSE, MasterCalls.SERVERS, 999);
            return Frames.finish(out);
        });
        RStoreException e = assertThrows(RStoreException.class, confused::chunkSizeBytes);
        assertEquals(ErrorCode.INVALID_FRAME, e.code());
        RemoteMaster trailing = new RemoteMaster(frame -> {
            Frames.Header h = Frames.read(frame);
            WireBuffer out = Frames.start(Frames.RESPONSE, h.type(), h.correlation());
            out.putLong(1).putByte(7);
            return Frames.finish(out);
        });
        assertEquals(ErrorCode.INVALID_FRAME, assertThrows(RStoreException.class, trailing::chunkSizeBytes).code());
    }

    /** Records the master's chunk calls on a memory server. */
    private static final class RecordingServer implements ChunkService {
        final List<String> calls = new ArrayList<>();
        long used = 5;

        @Override
        public Grant allocateChunk(long bytes) {
            calls.add("allocate " + bytes);
            used += bytes;
            return new Grant(12, -77_000_000_000L);
        }

        @Override
        public long recycle(int chunkId) {
            calls.add("recycle " + chunkId);
            return 0x5eed_0000_7a11_1234L;
        }

        @Override
        public void zero(int chunkId, long offset, long length) {
            calls.add("zero " + chunkId + " " + offset + " " + length);
        }

        @Override
        public void populate(int chunkId, long offset, long length) {
            calls.add("populate " + chunkId + " " + offset + " " + length);
        }

        @Override
        public void releaseChunk(int chunkId) {
            calls.add("release " + chunkId);
            used -= 1 << 20;
            if (chunkId < 0) {
                throw ErrorCode.INVALID_ARGUMENT.exception("no chunk " + chunkId);
            }
        }

        @Override
        public long capacityBytes() {
            return 1L << 36;
        }

        @Override
        public long usedBytes() {
            return used;
        }
    }

    @Test
    void shouldRoundTripEveryChunkCallForTheTokenHolderOnly() {
        RecordingServer server = new RecordingServer();
        FrameHandler handler = ChunkCalls.handler(server, "t0ken");
        RemoteChunkService remoteServer = new RemoteChunkService(handler::handle, "t0ken");
        assertEquals(1L << 36, remoteServer.capacityBytes());
        assertEquals(5, remoteServer.usedBytes());
        assertEquals(new ChunkService.Grant(12, -77_000_000_000L), remoteServer.allocateChunk(1 << 20));
        assertEquals(5 + (1 << 20), remoteServer.usedBytes(), "used bytes come back with the grant");
        assertEquals(0x5eed_0000_7a11_1234L, remoteServer.recycle(12));
        remoteServer.zero(12, 64, 4096);
        remoteServer.populate(12, 8192, 1 << 16);
        remoteServer.releaseChunk(12);
        assertEquals(5, remoteServer.usedBytes());
        server.used = 99;
        remoteServer.ping();
        assertEquals(99, remoteServer.usedBytes(), "a ping refreshes used bytes");
        RStoreException e = assertThrows(RStoreException.class, () -> remoteServer.releaseChunk(-1));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertEquals(List.of("allocate 1048576", "recycle 12", "zero 12 64 4096", "populate 12 8192 65536", "release 12", "release -1"), server.calls);

        RStoreException stranger = assertThrows(RStoreException.class, () -> new RemoteChunkService(handler::handle, "guess"));
        assertEquals(ErrorCode.UNAUTHORIZED, stranger.code());
        remote.servers();
        ByteBuffer masterCall = requests.getLast();
        assertEquals(ErrorCode.INVALID_FRAME.code(), Frames.read(handler.handle(masterCall)).body().getInt(),
                "a memory server's port takes no master calls");
        assertEquals(List.of("allocate 1048576", "recycle 12", "zero 12 64 4096", "populate 12 8192 65536", "release 12", "release -1"), server.calls,
                "no call by a stranger");
    }
}

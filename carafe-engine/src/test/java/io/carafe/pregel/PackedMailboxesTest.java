package io.carafe.pregel;

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Messages without a combiner, packed in pages: the workers of three partitions send
 * random messages to each other across many small pages (so page lists outgrow their
 * first room), over several supersteps of both parities; each receiver must see exactly
 * the multiset sent to each of its vertices, as a plain map of lists kept beside says, and
 * a checkpoint's sections, resent, must arrive again the same. The combining side, through
 * the same pages, must sum to what was sent to each vertex.
 */
class PackedMailboxesTest {
    private static final RecordLayout MESSAGE = RecordLayout.builder().addLong("a").addLong("b").build(); // 16 bytes: 20 a message
    private static final long PAGE_BYTES = 200; // 10 messages a page
    private static final Partitioning PARTITIONING = new Partitioning(new int[] {0, 40, 100, 130}, 1, 0);

    private RStore rstore;
    private Namespace job;
    private final List<Mapping> directories = new ArrayList<>();

    @BeforeEach
    void start() {
        rstore = RStore.embedded(RStoreSettings.defaults().withChunkSizeBytes(1 << 20).withLocalArenaBytes(1 << 22));
        job = rstore.createNamespace("packed-test");
        job.alloc(JobLayout.bytes(PARTITIONING.partitions()), AllocFlags.GROW | AllocFlags.ZERO);
    }

    @AfterEach
    void stop() {
        directories.forEach(Mapping::close);
        rstore.close();
    }

    private PackedMailboxes worker(int index) {
        Mapping directory = job.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.PREFETCH);
        directories.add(directory);
        return new PackedMailboxes(job, directory, PARTITIONING, index, MESSAGE, PAGE_BYTES);
    }

    @Test
    void shouldDeliverEveryMessageToItsTargetAcrossPagesAndParities() {
        int partitions = PARTITIONING.partitions();
        List<PackedMailboxes> workers = new ArrayList<>();
        for (int i = 0; i < partitions; i++) {
            workers.add(worker(i));
        }
        for (int i = 0; i < partitions; i++) { // setup round: each names its page lists, then writes its row
            workers.get(i).allocate();
            directories.get(i).write(JobLayout.row(partitions, i), JobLayout.rowBytes(partitions));
        }
        workers.forEach(PackedMailboxes::join);
        Random random = new Random(7);
        RecordView message = RecordView.allocate(MESSAGE);
        List<TreeMap<Integer, List<String>>> expected = null;
        for (long superstep = 0; superstep < 5; superstep++) {
            for (int i = 0; i < partitions; i++) {
                workers.get(i).read(superstep);
                assertReceived(workers.get(i), i, expected);
            }
            expected = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                expected.add(new TreeMap<>());
            }
            // superstep 2 sends nothing at all; superstep 3 more than the page lists' first 16 pages hold
            int count = superstep == 2 ? 0 : superstep == 3 ? 900 : 120;
            for (int i = 0; i < partitions; i++) {
                for (int m = 0; m < count; m++) {
                    int target = random.nextInt(PARTITIONING.end(partitions - 1));
                    message.setLong(0, superstep * 1_000_000 + i * 10_000 + m);
                    message.setLong(8, random.nextLong());
                    workers.get(i).deliver(superstep, target, message.memory(), message.base());
                    expected.get(PARTITIONING.partitionOf(target)).computeIfAbsent(target, t -> new ArrayList<>())
                            .add(message.getLong(0) + "/" + message.getLong(8));
                }
            }
            for (PackedMailboxes w : workers) {
                w.write(superstep);
            }
            if (superstep == 3) { // a checkpoint of what superstep 4 reads, resent as a restarted job would
                for (PackedMailboxes w : workers) {
                    List<MemorySegment> sections = new ArrayList<>();
                    for (MemorySegment s : w.sent(4)) {
                        sections.add(MemorySegment.ofArray(s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
                    }
                    w.resend(4, sections);
                }
            }
        }
        workers.forEach(PackedMailboxes::close);
    }

    /**
     * The combining side through the same small pages: sums of random longs per target, over
     * supersteps of both parities and more than the page lists' first room, equal to the sums
     * kept beside; a vertex nobody sent to has no message.
     */
    @Test
    void shouldCombineEveryMessageToItsTargetAcrossPages() {
        int partitions = PARTITIONING.partitions();
        int vertices = PARTITIONING.end(partitions - 1);
        List<CombiningMailboxes> workers = new ArrayList<>();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            for (int i = 0; i < partitions; i++) {
                Mapping directory = job.raddress(RStore.RSTORE_INIT_RADDRESS).map(MapFlags.PREFETCH);
                directories.add(directory);
                workers.add(new CombiningMailboxes(job, directory, PARTITIONING, i, vertices, RecordLayout.LONG, LongCombiner.SUM, arena, 36)); // 3 a page
            }
            for (int i = 0; i < partitions; i++) {
                workers.get(i).allocate();
                directories.get(i).write(JobLayout.row(partitions, i), JobLayout.rowBytes(partitions));
            }
            workers.forEach(CombiningMailboxes::join);
            Random random = new Random(11);
            RecordView message = RecordView.allocate(RecordLayout.LONG);
            long[] expected = null;
            for (long superstep = 0; superstep < 4; superstep++) {
                for (int i = 0; i < partitions; i++) {
                    CombiningMailboxes w = workers.get(i);
                    w.read(superstep);
                    for (int v = PARTITIONING.start(i); v < PARTITIONING.end(i); v++) {
                        int local = v - PARTITIONING.start(i);
                        boolean has = (w.messageBits()[local >>> 6] & 1L << local) != 0;
                        long want = expected == null ? 0 : expected[v];
                        assertEquals(want != 0, has, "vertex " + v + " in superstep " + superstep);
                        if (has) {
                            assertEquals(want, w.message(local, 0).getLong(0), "vertex " + v + " in superstep " + superstep);
                        }
                    }
                }
                expected = new long[vertices];
                for (int i = 0; i < partitions; i++) {
                    for (int m = 0; m < (superstep == 1 ? 400 : 60); m++) { // superstep 1: more targets than 16 pages of 3 hold, per pair
                        int target = random.nextInt(vertices);
                        long value = 1 + random.nextInt(1000); // never 0: 0 stands for none above
                        message.setLong(0, value);
                        workers.get(i).deliver(superstep, target, message.memory(), message.base());
                        expected[target] += value;
                    }
                }
                for (CombiningMailboxes w : workers) {
                    w.write(superstep);
                }
            }
            workers.forEach(CombiningMailboxes::close);
        }
    }

    /** What partition {@code p} received, by target vertex, is what was sent to it (in any order); null: nothing was sent yet. */
    private static void assertReceived(PackedMailboxes worker, int p, List<TreeMap<Integer, List<String>>> expected) {
        TreeMap<Integer, List<String>> want = expected == null ? new TreeMap<>() : expected.get(p);
        TreeMap<Integer, List<String>> got = new TreeMap<>();
        long[] bits = worker.messageBits();
        for (int v = PARTITIONING.start(p); v < PARTITIONING.end(p); v++) {
            int local = v - PARTITIONING.start(p);
            int n = worker.messageCount(local);
            assertEquals(n > 0, (bits[local >>> 6] & 1L << local) != 0, "arrival bit of vertex " + v);
            for (int i = 0; i < n; i++) {
                RecordView r = worker.message(local, i);
                got.computeIfAbsent(v, t -> new ArrayList<>()).add(r.getLong(0) + "/" + r.getLong(8));
            }
        }
        for (List<String> l : want.values()) {
            l.sort(null);
        }
        for (List<String> l : got.values()) {
            l.sort(null);
        }
        assertEquals(want, got, "messages received by partition " + p);
    }
}

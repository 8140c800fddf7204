package io.rstore.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.NamespaceFlags;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * What durability costs, on a running cluster (rstore bench --durability): the latency of
 * control calls that change metadata (alloc and free, which a journaling master fsyncs
 * before answering) and of one that does not (lookup), and {@link Mapping#persist} of
 * freshly written ranges of several sizes in a durable namespace. Run it against a master
 * with and without a persistence directory, interleaved, to see the journal's share.
 */
public final class DurabilityBench {
    private static final List<Long> PERSIST_SIZES = List.of(4096L, 1L << 20, 16L << 20, 64L << 20);

    private final RStore rstore;
    private final int calls;
    private final int persistRounds;
    private final PrintStream progress;

    public DurabilityBench(RStore rstore, int calls, int persistRounds, PrintStream progress) {
        this.rstore = rstore;
        this.calls = calls;
        this.persistRounds = persistRounds;
        this.progress = progress;
    }

    public ObjectNode run() {
        ObjectNode result = new ObjectMapper().createObjectNode();
        result.put("calls", calls);
        String name = "bench-durability-" + ProcessHandle.current().pid();
        Namespace ns = rstore.createNamespace(name, NamespaceFlags.DURABLE);
        try {
            controlCalls(ns, result.putObject("controlCallNanos"));
            persist(ns, result.putArray("persist"));
        } finally {
            rstore.deleteNamespace(name);
        }
        return result;
    }

    /** alloc + free pairs of 64 bytes in a reserved namespace, and lookups: each call timed alone. */
    private void controlCalls(Namespace ns, ObjectNode out) {
        progress.printf("control calls: %d allocs, frees and lookups%n", calls);
        ns.reserve(1 << 20);
        long[] alloc = new long[calls];
        long[] free = new long[calls];
        long[] lookup = new long[calls];
        RAddress kept = ns.alloc(64);
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            RAddress segment = ns.alloc(64);
            long t1 = System.nanoTime();
            ns.free(segment);
            long t2 = System.nanoTime();
            ns.raddress(kept.address());
            long t3 = System.nanoTime();
            alloc[i] = t1 - t0;
            free[i] = t2 - t1;
            lookup[i] = t3 - t2;
        }
        ns.free(kept);
        put(out.putObject("alloc"), Percentiles.of(alloc));
        put(out.putObject("free"), Percentiles.of(free));
        put(out.putObject("lookup"), Percentiles.of(lookup));
    }

    private static void put(ObjectNode node, Percentiles p) {
        node.put("p50", p.p50());
        node.put("p90", p.p90());
        node.put("p99", p.p99());
    }

    /** Per size: write the whole range (every page dirty), then time persist of it; the median of the rounds. */
    private void persist(Namespace ns, ArrayNode out) {
        for (long size : PERSIST_SIZES) {
            progress.printf("persist: %d bytes%n", size);
            RAddress segment = ns.alloc(size, AllocFlags.GROW);
            long[] nanos = new long[persistRounds];
            try (Mapping m = segment.map(MapFlags.NONE)) {
                for (int round = 0; round < persistRounds; round++) {
                    for (long at = 0; at < size; at += 4096) {
                        m.segment().set(ValueLayout.JAVA_LONG, at, round * size + at);
                    }
                    m.write();
                    long t0 = System.nanoTime();
                    m.persist(0, size);
                    nanos[round] = System.nanoTime() - t0;
                }
            }
            ns.free(segment);
            double median = Percentiles.of(nanos).p50();
            ObjectNode row = out.addObject();
            row.put("bytes", size);
            row.put("rounds", persistRounds);
            row.put("medianMicros", median / 1000);
            row.put("microsPerMiB", median / 1000 / (size / (double) (1 << 20)));
        }
    }
}

import io.rstore.AllocFlags;
import io.rstore.MapFlags;
import io.rstore.Mapping;
import io.rstore.Namespace;
import io.rstore.RAddress;
import io.rstore.RStore;

import java.util.Arrays;

/**
 * 8-byte read p50 of six segments, each mapped on its own, in one JVM, round after round:
 * whether a read's speed follows the addresses it touches (remote and local), the JVM, or
 * the time (notebook, "RDMA reads on SoftRoCE: a boot's speed shifts within a JVM"). Not part
 * of the build; docs/measure/rdma_guest_spread.patch runs it in bin/test-rdma's guest and says
 * how to compile it first. Prints one line: SPREAD, then per round each segment's p50 in µs.
 */
public class ReadSpread {
    public static void main(String[] args) {
        int segments = 6;
        int ops = 2000;
        int rounds = 4;
        try (RStore rstore = RStore.connect(args[0])) {
            Namespace ns = rstore.createNamespace("read-spread");
            Mapping[] maps = new Mapping[segments];
            for (int s = 0; s < segments; s++) {
                RAddress seg = ns.alloc(1 << 20, AllocFlags.GROW | AllocFlags.ZERO); // a MiB apart
                maps[s] = seg.map(MapFlags.NONE);
            }
            long[] t = new long[ops];
            for (int w = 0; w < 20; w++) {
                for (Mapping m : maps) {
                    time(m, t);
                }
            }
            StringBuilder out = new StringBuilder("SPREAD");
            for (int r = 0; r < rounds; r++) {
                out.append(" |");
                for (Mapping m : maps) {
                    out.append(String.format(" %.1f", time(m, t) / 1000.0));
                }
            }
            System.out.println(out);
            for (Mapping m : maps) {
                m.close();
            }
            rstore.deleteNamespace("read-spread");
        }
    }

    static long time(Mapping m, long[] t) {
        for (int i = 0; i < t.length; i++) {
            long s = System.nanoTime();
            m.read(0, 8);
            t[i] = System.nanoTime() - s;
        }
        Arrays.sort(t);
        return t[t.length / 2];
    }
}

package io.rstore.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * perftest's reports as perftest 4.5 printed them in bin/test-rdma's guest on 2026-11-23
 * (docs/measure/notebook.md), beside bench figures whose ratios were worked out by hand.
 */
class PerftestComparisonTest {
    private static final List<String> READ_LAT = List.of(
            "---------------------------------------------------------------------------------------",
            " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] ",
            " 8       2000          30.36          628.63       54.99              60.28          42.57           324.40                  626.76  ",
            "---------------------------------------------------------------------------------------");
    private static final List<String> READ_BW = List.of(
            " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
            " 1048576    200              43.45              36.35              0.000036",
            "---------------------------------------------------------------------------------------");

    private static JsonNode bench(double readP50Nanos, double... gbpsByInFlight) throws Exception {
        ObjectNode bench = new ObjectMapper().createObjectNode();
        bench.putArray("latency").addObject().put("op", "read").put("bytes", 8).putObject("rstoreNanos").put("p50", readP50Nanos);
        bench.withArray("latency").addObject().put("op", "write").put("bytes", 8).putObject("rstoreNanos").put("p50", 25_000);
        for (int i = 0; i < gbpsByInFlight.length; i++) {
            bench.withArray("bandwidth").addObject().put("op", "read").put("bytes", 1 << 20).put("inFlight", i == 0 ? 1 : 16)
                    .put("rstoreGBps", gbpsByInFlight[i]);
            bench.withArray("bandwidth").addObject().put("op", "write").put("bytes", 1 << 20).put("inFlight", i == 0 ? 1 : 16)
                    .put("rstoreGBps", 9.0);
        }
        return bench;
    }

    @Test
    void shouldSetReadsBesidePerftestInOneUnit() throws Exception {
        JsonNode figures = PerftestComparison.compare(READ_LAT, READ_BW, bench(63_730, 0.0366, 0.0290));
        assertEquals(54.99, figures.at("/readLatency/perftestTypicalMicros").asDouble(), 1e-9);
        assertEquals(63.73 / 54.99, figures.at("/readLatency/ratio").asDouble(), 1e-9); // 1.159
        assertTrue(figures.at("/readLatency/met").asBoolean());
        // 36.35 MiB/s = 36.35 * 1,048,576 / 10^6 = 38.116 MB/s
        assertEquals(38.116, figures.at("/largeReads/0/perftestAverageMBps").asDouble(), 0.001);
        assertEquals(36.6, figures.at("/largeReads/0/rstoreMBps").asDouble(), 1e-9);
        assertEquals(36.6 / 38.116, figures.at("/largeReads/0/ratio").asDouble(), 1e-4); // 96.0%
        assertTrue(figures.at("/largeReads/0/met").asBoolean());
        assertEquals(16, figures.at("/largeReads/1/inFlight").asInt());
        assertFalse(figures.at("/largeReads/1/met").asBoolean(), "29.0 of 38.1 MB/s is 76%, under 80%");
        assertEquals(2, figures.get("largeReads").size(), "reads only, not writes");
        String table = PerftestComparison.table(figures);
        assertTrue(table.contains("1.159x"), table);
        assertTrue(table.contains("MISSED"), table);
    }

    @Test
    void shouldSayWhichReportLacksItsFigure() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PerftestComparison.compare(READ_LAT, List.of("Couldn't connect to 10.0.2.15:18515"), bench(1, 1)));
        assertTrue(e.getMessage().contains("ib_read_bw's report has no BW_average[MB/sec]"), e.getMessage());
    }
}

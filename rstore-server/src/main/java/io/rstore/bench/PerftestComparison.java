package io.rstore.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * RStore's rdma figures beside perftest's from the same boot of the same device, as
 * {@code bin/test-rdma bench} takes them: the 8-byte read's p50 against {@code ib_read_lat}'s
 * typical latency (target ≤ 1.5×), 1 MiB reads against {@code ib_read_bw}'s average
 * (target ≥ 80%). Both in one unit: MB/s are 10^6 bytes a second, and perftest's MiB/s
 * (2^20) are converted. Prints a table and writes the figures as JSON. (Writes have no
 * perftest figure to stand beside: {@code ib_write_lat} times a ping-pong of writes that
 * each side notices by polling its memory, not a write's completion.)
 *
 * <p>Latency comes in pairs, each an {@code ib_read_lat} run and a fresh {@code rstore bench}
 * run next to it: under QEMU's emulation a boot's speed shifts by a fifth from one minute to
 * the next (docs/measure/notebook.md), so each pair's ratio is taken in one state and the
 * median of the pairs' ratios counts.
 *
 * <p>Usage: {@code PerftestComparison OUT_JSON IB_READ_BW RSTORE_BENCH_JSON IB_READ_LAT RSTORE_LATENCY_JSON [IB_READ_LAT RSTORE_LATENCY_JSON]...}:
 * perftest's printed reports and {@code rstore bench --format json}'s output, the bandwidth
 * from the first bench and the latency from each pair.
 */
public final class PerftestComparison {
    static final double LATENCY_TARGET = 1.5;
    static final double BANDWIDTH_TARGET = 0.80;
    private static final double MIB = 1 << 20;

    private PerftestComparison() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 5 || args.length % 2 == 0) {
            System.err.println("usage: PerftestComparison OUT_JSON IB_READ_BW RSTORE_BENCH_JSON IB_READ_LAT RSTORE_LATENCY_JSON [IB_READ_LAT RSTORE_LATENCY_JSON]...");
            System.exit(2);
        }
        ObjectMapper json = new ObjectMapper();
        List<LatencyPair> pairs = new ArrayList<>();
        for (int i = 3; i < args.length; i += 2) {
            pairs.add(new LatencyPair(Files.readAllLines(Path.of(args[i])), json.readTree(Path.of(args[i + 1]).toFile())));
        }
        ObjectNode figures = compare(Files.readAllLines(Path.of(args[1])), json.readTree(Path.of(args[2]).toFile()), pairs);
        json.writerWithDefaultPrettyPrinter().writeValue(Path.of(args[0]).toFile(), figures);
        System.out.print(table(figures));
    }

    /** One {@code ib_read_lat} report and the JSON of the {@code rstore bench} run next to it. */
    record LatencyPair(List<String> readLatReport, JsonNode bench) {
    }

    /** The figures side by side, from {@code ib_read_bw}'s report, the bench's JSON and the latency pairs. */
    static ObjectNode compare(List<String> readBwReport, JsonNode bench, List<LatencyPair> pairs) {
        if (pairs.isEmpty()) {
            throw new IllegalArgumentException("no latency pair: give an ib_read_lat report and an rstore bench JSON at least once");
        }
        ObjectNode figures = new ObjectMapper().createObjectNode();
        figures.put("unit", "MB/s = 10^6 bytes per second; perftest's MiB/s converted");
        ObjectNode latency = figures.putObject("readLatency");
        latency.put("bytes", 8);
        ArrayNode pairFigures = latency.putArray("pairs");
        double[] typical = new double[pairs.size()];
        double[] p50 = new double[pairs.size()];
        double[] ratios = new double[pairs.size()];
        for (int i = 0; i < pairs.size(); i++) {
            typical[i] = column(pairs.get(i).readLatReport(), "8", "t_typical[usec]", "ib_read_lat");
            p50[i] = row(pairs.get(i).bench().get("latency"), "read", 8).at("/rstoreNanos/p50").asDouble() / 1000;
            ratios[i] = p50[i] / typical[i];
            pairFigures.addObject().put("perftestTypicalMicros", typical[i]).put("rstoreP50Micros", p50[i]).put("ratio", ratios[i]);
        }
        double ratio = median(ratios);
        latency.put("perftestTypicalMicros", median(typical));
        latency.put("rstoreP50Micros", median(p50));
        latency.put("ratio", ratio);
        latency.put("target", LATENCY_TARGET);
        latency.put("met", ratio <= LATENCY_TARGET);
        double perftestMBps = column(readBwReport, "1048576", "BW_average[MB/sec]", "ib_read_bw") * MIB / 1e6;
        ArrayNode reads = figures.putArray("largeReads");
        for (JsonNode r : bench.get("bandwidth")) {
            if (r.get("op").asText().equals("read") && r.get("bytes").asLong() == 1 << 20) {
                double rstoreMBps = r.get("rstoreGBps").asDouble() * 1000;
                ObjectNode large = reads.addObject();
                large.put("bytes", 1 << 20);
                large.put("inFlight", r.get("inFlight").asInt());
                large.put("perftestAverageMBps", perftestMBps);
                large.put("rstoreMBps", rstoreMBps);
                large.put("ratio", rstoreMBps / perftestMBps);
                large.put("target", BANDWIDTH_TARGET);
                large.put("met", rstoreMBps / perftestMBps >= BANDWIDTH_TARGET);
            }
        }
        if (reads.isEmpty()) {
            throw new IllegalArgumentException("the bench's JSON has no 1 MiB reads: run rstore bench with --bandwidth-max 1MiB or more");
        }
        return figures;
    }

    /** The middle value, or the mean of the two middle ones. */
    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    static String table(JsonNode figures) {
        StringBuilder out = new StringBuilder("RStore beside perftest, same device and boot (" + figures.get("unit").asText() + ")\n");
        out.append(String.format("%-28s %16s %16s %9s %12s%n", "what", "perftest", "rstore", "ratio", "target"));
        JsonNode l = figures.get("readLatency");
        int pair = 0;
        for (JsonNode p : l.get("pairs")) {
            out.append(String.format("%-28s %13.2f us %13.2f us %8.3fx%n", "8-byte read latency, pair " + ++pair, p.get("perftestTypicalMicros").asDouble(),
                    p.get("rstoreP50Micros").asDouble(), p.get("ratio").asDouble()));
        }
        out.append(String.format("%-28s %13.2f us %13.2f us %8.3fx %12s%n", "8-byte read latency, median", l.get("perftestTypicalMicros").asDouble(),
                l.get("rstoreP50Micros").asDouble(), l.get("ratio").asDouble(), "<= 1.5x " + (l.get("met").asBoolean() ? "met" : "MISSED")));
        for (JsonNode r : figures.get("largeReads")) {
            out.append(String.format("%-28s %11.2f MB/s %11.2f MB/s %8.1f%% %12s%n", "1 MiB reads, " + r.get("inFlight").asInt() + " in flight",
                    r.get("perftestAverageMBps").asDouble(), r.get("rstoreMBps").asDouble(), 100 * r.get("ratio").asDouble(),
                    ">= 80% " + (r.get("met").asBoolean() ? "met" : "MISSED")));
        }
        out.append("perftest: ib_read_lat's t_typical, ib_read_bw's BW average; rstore: read p50, and reads with that many in flight;\n"
                + "latency in pairs of runs next to each other, the median of their ratios counting\n");
        return out.toString();
    }

    /**
     * The figure under {@code header} in the row of a perftest report that starts with
     * {@code first}. Header names with a space in them ("BW average[MB/sec]", "99% percentile[usec]")
     * are read with an underscore.
     */
    static double column(List<String> report, String first, String header, String tool) {
        String[] names = null;
        for (String line : report) {
            String[] cells = line.trim().replace("BW ", "BW_").replace("% percentile", "%_percentile").split("\\s+");
            if (cells.length > 0 && cells[0].equals("#bytes")) {
                names = cells;
            } else if (names != null && cells.length == names.length && cells[0].equals(first)) {
                for (int i = 0; i < names.length; i++) {
                    if (names[i].equals(header)) {
                        return Double.parseDouble(cells[i]);
                    }
                }
            }
        }
        throw new IllegalArgumentException(tool + "'s report has no " + header + " for " + first + " bytes (was it run, and did it finish?)");
    }

    private static JsonNode row(JsonNode rows, String op, int bytes) {
        for (JsonNode r : rows) {
            if (r.get("op").asText().equals(op) && r.get("bytes").asInt() == bytes) {
                return r;
            }
        }
        throw new IllegalArgumentException("the bench's JSON has no " + bytes + "-byte " + op + " latency: run rstore bench with --latency-bytes " + bytes);
    }
}

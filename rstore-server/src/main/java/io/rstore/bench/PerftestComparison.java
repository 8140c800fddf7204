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
 * <p>The figures come in rounds, each perftest's two runs and a fresh {@code rstore bench} run
 * next to them: under QEMU's emulation a boot's speed shifts by a fifth from one minute to the
 * next (docs/measure/notebook.md), so each round's ratios are taken in one state, and for each
 * figure the median of the rounds' ratios counts.
 *
 * <p>Usage: {@code PerftestComparison OUT_JSON IB_READ_LAT IB_READ_BW RSTORE_BENCH_JSON [IB_READ_LAT IB_READ_BW RSTORE_BENCH_JSON]...}:
 * perftest's printed reports and {@code rstore bench --format json}'s output, a round at a time.
 */
public final class PerftestComparison {
    static final double LATENCY_TARGET = 1.5;
    static final double BANDWIDTH_TARGET = 0.80;
    private static final double MIB = 1 << 20;
    private static final int LARGE = 1 << 20;

    private PerftestComparison() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 4 || (args.length - 1) % 3 != 0) {
            System.err.println("usage: PerftestComparison OUT_JSON IB_READ_LAT IB_READ_BW RSTORE_BENCH_JSON [IB_READ_LAT IB_READ_BW RSTORE_BENCH_JSON]...");
            System.exit(2);
        }
        ObjectMapper json = new ObjectMapper();
        List<Round> rounds = new ArrayList<>();
        for (int i = 1; i < args.length; i += 3) {
            rounds.add(new Round(Files.readAllLines(Path.of(args[i])), Files.readAllLines(Path.of(args[i + 1])),
                    json.readTree(Path.of(args[i + 2]).toFile())));
        }
        ObjectNode figures = compare(rounds);
        json.writerWithDefaultPrettyPrinter().writeValue(Path.of(args[0]).toFile(), figures);
        System.out.print(table(figures));
    }

    /** {@code ib_read_lat}'s and {@code ib_read_bw}'s reports and the JSON of the {@code rstore bench} run next to them. */
    record Round(List<String> readLatReport, List<String> readBwReport, JsonNode bench) {
    }

    /** The figures side by side, round by round, and the median of the rounds' ratios. */
    static ObjectNode compare(List<Round> rounds) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("no round: give ib_read_lat's and ib_read_bw's reports and an rstore bench JSON at least once");
        }
        ObjectNode figures = new ObjectMapper().createObjectNode();
        figures.put("unit", "MB/s = 10^6 bytes per second; perftest's MiB/s converted");
        int n = rounds.size();
        double[] typical = new double[n];
        double[] p50 = new double[n];
        double[] perftestMBps = new double[n];
        for (int i = 0; i < n; i++) {
            typical[i] = column(rounds.get(i).readLatReport(), "8", "t_typical[usec]", "ib_read_lat");
            p50[i] = row(rounds.get(i).bench().get("latency"), "read", 8).at("/rstoreNanos/p50").asDouble() / 1000;
            perftestMBps[i] = column(rounds.get(i).readBwReport(), "1048576", "BW_average[MB/sec]", "ib_read_bw") * MIB / 1e6;
        }
        ObjectNode latency = figures.putObject("readLatency");
        latency.put("bytes", 8);
        putRounds(latency, "perftestTypicalMicros", typical, "rstoreP50Micros", p50, LATENCY_TARGET);
        latency.put("met", latency.get("ratio").asDouble() <= LATENCY_TARGET);
        ArrayNode reads = figures.putArray("largeReads");
        for (JsonNode first : rounds.getFirst().bench().get("bandwidth")) {
            if (!first.get("op").asText().equals("read") || first.get("bytes").asLong() != LARGE) {
                continue;
            }
            int inFlight = first.get("inFlight").asInt();
            double[] rstoreMBps = new double[n];
            for (int i = 0; i < n; i++) {
                rstoreMBps[i] = largeReads(rounds.get(i).bench(), inFlight).get("rstoreGBps").asDouble() * 1000;
            }
            ObjectNode large = reads.addObject();
            large.put("bytes", LARGE);
            large.put("inFlight", inFlight);
            putRounds(large, "perftestAverageMBps", perftestMBps, "rstoreMBps", rstoreMBps, BANDWIDTH_TARGET);
            large.put("met", large.get("ratio").asDouble() >= BANDWIDTH_TARGET);
        }
        if (reads.isEmpty()) {
            throw new IllegalArgumentException("the bench's JSON has no 1 MiB reads: run rstore bench with --bandwidth-max 1MiB or more");
        }
        return figures;
    }

    /** Each round's two figures and ratio, then the medians of each, and the target; the median ratio is the one that counts. */
    private static void putRounds(ObjectNode node, String perftestName, double[] perftest, String rstoreName, double[] rstore, double target) {
        double[] ratios = new double[perftest.length];
        ArrayNode each = node.putArray("rounds");
        for (int i = 0; i < perftest.length; i++) {
            ratios[i] = rstore[i] / perftest[i];
            each.addObject().put(perftestName, perftest[i]).put(rstoreName, rstore[i]).put("ratio", ratios[i]);
        }
        node.put(perftestName, median(perftest));
        node.put(rstoreName, median(rstore));
        node.put("ratio", median(ratios));
        node.put("target", target);
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
        out.append(String.format("%-32s %16s %16s %9s %12s%n", "what", "perftest", "rstore", "ratio", "target"));
        JsonNode l = figures.get("readLatency");
        int round = 0;
        for (JsonNode r : l.get("rounds")) {
            out.append(String.format("%-32s %13.2f us %13.2f us %8.3fx%n", "8-byte read latency, round " + ++round,
                    r.get("perftestTypicalMicros").asDouble(), r.get("rstoreP50Micros").asDouble(), r.get("ratio").asDouble()));
        }
        out.append(String.format("%-32s %13.2f us %13.2f us %8.3fx %12s%n", "8-byte read latency, median", l.get("perftestTypicalMicros").asDouble(),
                l.get("rstoreP50Micros").asDouble(), l.get("ratio").asDouble(), "<= 1.5x " + (l.get("met").asBoolean() ? "met" : "MISSED")));
        for (JsonNode large : figures.get("largeReads")) {
            String what = "1 MiB reads, " + large.get("inFlight").asInt() + " in flight";
            round = 0;
            for (JsonNode r : large.get("rounds")) {
                out.append(String.format("%-32s %11.2f MB/s %11.2f MB/s %8.1f%%%n", what + ", round " + ++round,
                        r.get("perftestAverageMBps").asDouble(), r.get("rstoreMBps").asDouble(), 100 * r.get("ratio").asDouble()));
            }
            out.append(String.format("%-32s %11.2f MB/s %11.2f MB/s %8.1f%% %12s%n", what + ", median", large.get("perftestAverageMBps").asDouble(),
                    large.get("rstoreMBps").asDouble(), 100 * large.get("ratio").asDouble(), ">= 80% " + (large.get("met").asBoolean() ? "met" : "MISSED")));
        }
        out.append("perftest: ib_read_lat's t_typical, ib_read_bw's BW average; rstore: read p50, and reads with that many in flight;\n"
                + "each round's runs next to each other, the median of the rounds' ratios counting\n");
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

    private static JsonNode largeReads(JsonNode bench, int inFlight) {
        for (JsonNode r : bench.get("bandwidth")) {
            if (r.get("op").asText().equals("read") && r.get("bytes").asLong() == LARGE && r.get("inFlight").asInt() == inFlight) {
                return r;
            }
        }
        throw new IllegalArgumentException("a bench's JSON has no 1 MiB reads with " + inFlight + " in flight, which the first round's has: run each round's bench alike");
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

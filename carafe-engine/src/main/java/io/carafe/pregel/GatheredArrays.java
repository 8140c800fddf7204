package io.carafe.pregel;

/**
 * The arrays a {@link Gather} fills each superstep, every partition's values by slot and
 * their sent bits, shared by the workers of one job that are threads of one process.
 * Every worker reads every partition's broadcast and writes the same bits into them, so
 * one copy serves all: the combine loop's random loads then share one array in the
 * machine's cache instead of one per worker (PageRank on livejournal-synthetic, 2
 * workers: a 19 MB array, against a 32 MiB L3; docs/benchmarks.md). A worker reads them
 * only after it has written them itself in the same superstep, and no worker writes them
 * for the next superstep before every worker has finished this one (the barrier), so a
 * reader sees its own bits or the same bits from another worker.
 */
final class GatheredArrays {
    private double[] doubles;
    private long[] longs;
    private long[] sent;

    synchronized double[] doubles(int length) {
        if (doubles == null || doubles.length != length) {
            doubles = new double[length];
        }
        return doubles;
    }

    synchronized long[] longs(int length) {
        if (longs == null || longs.length != length) {
            longs = new long[length];
        }
        return longs;
    }

    synchronized long[] sentBits(int words) {
        if (sent == null || sent.length != words) {
            sent = new long[words];
        }
        return sent;
    }
}

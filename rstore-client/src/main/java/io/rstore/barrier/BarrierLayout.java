package io.rstore.barrier;

/**
 * The bytes of a global-barrier region: one record for the coordinator, then one per
 * worker. Each record starts on its own cache line with its one-byte status flag, so a
 * polled flag never shares a line with another party's writes.
 *
 * <pre>
 *  offset 0                  record = align64(8 + areaBytes)
 *  +--------+---------+-------------------------------+
 *  | status | 7 pad   | coordinator area (areaBytes)  |   coordinator: START(k) / HALT / ABORT
 *  +--------+---------+-------------------------------+
 *  | status | 7 pad   | worker 0 area (areaBytes)     |   worker: FINISHED(k) / ERROR
 *  +--------+---------+-------------------------------+
 *  | ...      one record per worker                   |
 *  +--------------------------------------------------+
 * </pre>
 *
 * Status bytes: 0 means nothing yet; round k is {@code 1 + k mod 125}, enough because
 * parties never drift more than one round apart.
 */
public record BarrierLayout(int workers, int areaBytes) {
    public static final byte NOTHING = 0;
    public static final byte HALT = 126;
    public static final byte ABORT = 127;
    public static final byte ERROR = 127;
    private static final int STATUS_TO_AREA = 8;
    private static final int LINE = 64;

    public BarrierLayout {
        if (workers < 1 || areaBytes < 0 || areaBytes > 1 << 20) {
            throw new IllegalArgumentException("a barrier needs >= 1 worker and an area of 0..1 MiB, was " + workers + " and " + areaBytes);
        }
    }

    /** The status byte for round k (START for the coordinator, FINISHED for a worker). */
    public static byte round(long k) {
        return (byte) (1 + Math.floorMod(k, 125));
    }

    public long recordBytes() {
        return (STATUS_TO_AREA + areaBytes + LINE - 1) & -LINE;
    }

    public long totalBytes() {
        return recordBytes() * (workers + 1L);
    }

    public long coordinatorStatus() {
        return 0;
    }

    public long coordinatorArea() {
        return STATUS_TO_AREA;
    }

    public long workerRecords() {
        return recordBytes();
    }

    public long workerStatus(int worker) {
        return recordBytes() * (worker + 1L);
    }

    public long workerArea(int worker) {
        return workerStatus(worker) + STATUS_TO_AREA;
    }
}

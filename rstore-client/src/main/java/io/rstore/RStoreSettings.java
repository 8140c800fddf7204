package io.rstore;

/**
 * Settings of an RStore cluster and its clients, with units in the names. Validated when
 * built, so a bad value fails at start with a message naming the setting.
 *
 * @param clusterName         name an embedded cluster is known by inside its JVM ({@code inproc://NAME})
 * @param memoryServers       memory servers an embedded cluster starts
 * @param chunkSizeBytes      unit of reservation and striping; a power of two, 64 KiB to 1 GiB
 * @param serverCapacityBytes DRAM each memory server may hand out
 * @param localArenaBytes     size of the client's local memory arenas (a power of two)
 * @param localCacheBytes     unmapped local memory kept for reuse before arenas are given back
 * @param operationTimeoutMs  bound on any wait for a remote operation or a peer
 * @param metricsEnabled      whether the data path records latency and bytes
 * @param clusterSecret       shared secret a network cluster requires of every connection
 *                            (proved by challenge-response, never sent); empty for none
 */
public record RStoreSettings(
        String clusterName,
        int memoryServers,
        long chunkSizeBytes,
        long serverCapacityBytes,
        long localArenaBytes,
        long localCacheBytes,
        long operationTimeoutMs,
        boolean metricsEnabled,
        String clusterSecret) {

    public static final long KiB = 1024;
    public static final long MiB = 1024 * KiB;
    public static final long GiB = 1024 * MiB;

    public RStoreSettings {
        require(clusterName != null && !clusterName.isBlank(), "clusterName must not be empty");
        require(memoryServers >= 1 && memoryServers <= 1024, "memoryServers must be 1..1024, was " + memoryServers);
        require(Long.bitCount(chunkSizeBytes) == 1 && chunkSizeBytes >= 64 * KiB && chunkSizeBytes <= GiB,
                "chunkSizeBytes must be a power of two from 64 KiB to 1 GiB, was " + chunkSizeBytes);
        require(serverCapacityBytes >= chunkSizeBytes,
                "serverCapacityBytes (" + serverCapacityBytes + ") must hold at least one chunk of " + chunkSizeBytes);
        require(Long.bitCount(localArenaBytes) == 1 && localArenaBytes >= 64 * KiB,
                "localArenaBytes must be a power of two of at least 64 KiB, was " + localArenaBytes);
        require(localCacheBytes >= 0, "localCacheBytes must be >= 0, was " + localCacheBytes);
        require(operationTimeoutMs > 0, "operationTimeoutMs must be > 0, was " + operationTimeoutMs);
        clusterSecret = clusterSecret == null ? "" : clusterSecret;
    }

    @Override
    public String toString() { // never print the secret
        return "RStoreSettings[clusterName=" + clusterName + ", memoryServers=" + memoryServers + ", chunkSizeBytes=" + chunkSizeBytes
                + ", serverCapacityBytes=" + serverCapacityBytes + ", localArenaBytes=" + localArenaBytes + ", localCacheBytes=" + localCacheBytes
                + ", operationTimeoutMs=" + operationTimeoutMs + ", metricsEnabled=" + metricsEnabled
                + ", clusterSecret=" + (clusterSecret.isEmpty() ? "none" : "set") + "]";
    }

    /** Two memory servers of up to 8 GiB each, 16 MiB chunks: a laptop's worth. */
    public static RStoreSettings defaults() {
        return new RStoreSettings("embedded", 2, 16 * MiB, 8 * GiB, 64 * MiB, GiB, 30_000, true, "");
    }

    public RStoreSettings withClusterName(String v) {
        return new RStoreSettings(v, memoryServers, chunkSizeBytes, serverCapacityBytes, localArenaBytes, localCacheBytes, operationTimeoutMs, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withMemoryServers(int v) {
        return new RStoreSettings(clusterName, v, chunkSizeBytes, serverCapacityBytes, localArenaBytes, localCacheBytes, operationTimeoutMs, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withChunkSizeBytes(long v) {
        return new RStoreSettings(clusterName, memoryServers, v, serverCapacityBytes, localArenaBytes, localCacheBytes, operationTimeoutMs, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withServerCapacityBytes(long v) {
        return new RStoreSettings(clusterName, memoryServers, chunkSizeBytes, v, localArenaBytes, localCacheBytes, operationTimeoutMs, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withLocalArenaBytes(long v) {
        return new RStoreSettings(clusterName, memoryServers, chunkSizeBytes, serverCapacityBytes, v, localCacheBytes, operationTimeoutMs, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withLocalCacheBytes(long v) {
        return new RStoreSettings(clusterName, memoryServers, chunkSizeBytes, serverCapacityBytes, localArenaBytes, v, operationTimeoutMs, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withOperationTimeoutMs(long v) {
        return new RStoreSettings(clusterName, memoryServers, chunkSizeBytes, serverCapacityBytes, localArenaBytes, localCacheBytes, v, metricsEnabled, clusterSecret);
    }

    public RStoreSettings withMetricsEnabled(boolean v) {
        return new RStoreSettings(clusterName, memoryServers, chunkSizeBytes, serverCapacityBytes, localArenaBytes, localCacheBytes, operationTimeoutMs, v, clusterSecret);
    }

    public RStoreSettings withClusterSecret(String v) {
        return new RStoreSettings(clusterName, memoryServers, chunkSizeBytes, serverCapacityBytes, localArenaBytes, localCacheBytes, operationTimeoutMs, metricsEnabled, v);
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new RStoreException(ErrorCode.INVALID_ARGUMENT, "bad RStore setting: " + message);
        }
    }
}

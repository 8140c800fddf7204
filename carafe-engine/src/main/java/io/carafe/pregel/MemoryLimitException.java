package io.carafe.pregel;

/**
 * A job was stopped because the memory it used passed its bound ({@link PregelJob.Options#maxMemoryBytes}):
 * stopped by the engine, with what it had reached, before the kernel had to kill it.
 */
public final class MemoryLimitException extends PregelException {
    private final long usedBytes;
    private final long limitBytes;

    MemoryLimitException(String message, long usedBytes, long limitBytes) {
        super(message, null);
        this.usedBytes = usedBytes;
        this.limitBytes = limitBytes;
    }

    /** The resident memory measured when the job was stopped: this process's and its worker processes'. */
    public long usedBytes() {
        return usedBytes;
    }

    public long limitBytes() {
        return limitBytes;
    }
}

package io.rstore;

import java.util.Arrays;

/**
 * Many reads and writes, on any mappings, posted together and awaited together, so they
 * are all in flight at once. Reusable: add, {@link #submit()}, {@link #await()}, repeat;
 * after its arrays have grown to the largest batch it allocates nothing. One thread at a
 * time.
 */
public final class Batch {
    private Mapping[] mappings = new Mapping[16];
    private long[] offsets = new long[16];
    private long[] lengths = new long[16];
    private boolean[] writes = new boolean[16];
    private int size;
    private boolean submitted;
    private final Completion completion = new Completion();

    public Batch read(Mapping mapping, long offset, long length) {
        return add(mapping, false, offset, length);
    }

    public Batch write(Mapping mapping, long offset, long length) {
        return add(mapping, true, offset, length);
    }

    private Batch add(Mapping mapping, boolean write, long offset, long length) {
        if (submitted) {
            throw ErrorCode.INVALID_ARGUMENT.exception("this batch was submitted; await it before adding operations");
        }
        int invalid = mapping.validate(write, offset, length);
        if (invalid != 0) {
            throw mapping.failure(invalid, write, offset, length);
        }
        if (size == mappings.length) {
            int grown = size * 2;
            mappings = Arrays.copyOf(mappings, grown);
            offsets = Arrays.copyOf(offsets, grown);
            lengths = Arrays.copyOf(lengths, grown);
            writes = Arrays.copyOf(writes, grown);
        }
        mappings[size] = mapping;
        offsets[size] = offset;
        lengths[size] = length;
        writes[size] = write;
        size++;
        return this;
    }

    public int size() {
        return size;
    }

    /** Posts every operation added; returns at once. */
    public Batch submit() {
        if (submitted) {
            return this;
        }
        int pieces = 0;
        long timeout = 0;
        for (int i = 0; i < size; i++) {
            pieces += mappings[i].pieces(offsets[i], lengths[i]);
            timeout = Math.max(timeout, mappings[i].timeoutNanos());
        }
        completion.arm(pieces, timeout);
        for (int i = 0; i < size; i++) {
            mappings[i].post(writes[i], offsets[i], lengths[i], completion);
            mappings[i].meter(writes[i], lengths[i]);
        }
        submitted = true;
        return this;
    }

    /**
     * Submits if needed, waits for every operation, and empties the batch for reuse.
     * Returns an {@link ErrorCode} number (0 when all succeeded; else the first failure).
     */
    public int await() {
        submit();
        int status = completion.await();
        if (status == ErrorCode.TIMED_OUT.code()) {
            return status; // still in flight: the batch must not be reused
        }
        Arrays.fill(mappings, 0, size, null);
        size = 0;
        submitted = false;
        return status;
    }

    /** Like {@link #await()}, throwing on failure. */
    public void join() {
        int n = size;
        RStoreException.check(await(), "a batch of " + n + " operations failed");
    }
}

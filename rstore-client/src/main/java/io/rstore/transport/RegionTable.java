package io.rstore.transport;

import io.rstore.ErrorCode;

import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The registered memory of one memory server, the software form of an RNIC's memory
 * region table: each chunk has an id and an unguessable key, and every one-sided access
 * is checked against both and against the chunk's bounds before a byte moves. A wrong
 * key or range is an error code, never a read of other memory.
 */
public final class RegionTable {
    private static final int OK = ErrorCode.NONE.code();
    private static final int UNAUTHORIZED = ErrorCode.UNAUTHORIZED.code();
    private static final int OUT_OF_BOUNDS = ErrorCode.OUT_OF_BOUNDS.code();
    private static final int UNAVAILABLE = ErrorCode.SERVER_UNAVAILABLE.code();

    private record Region(MemorySegment memory, long key) {
    }

    private final SecureRandom random = new SecureRandom();
    private volatile Region[] regions = new Region[16];
    private volatile boolean online = true;

    /** Registers memory under a fresh id and key; returns the id. */
    public synchronized int register(MemorySegment memory) {
        Region[] table = regions;
        int id = 0;
        while (id < table.length && table[id] != null) {
            id++;
        }
        if (id == table.length) {
            table = Arrays.copyOf(table, table.length * 2);
        }
        table[id] = new Region(memory, newKey());
        regions = table;
        return id;
    }

    /** Registers memory under a given id and key (a chunk kept across a restart); the id must be free. */
    public synchronized void registerAt(int id, long key, MemorySegment memory) {
        Region[] table = regions;
        if (id < 0) {
            throw ErrorCode.INVALID_ARGUMENT.exception("chunk id " + id + " is negative");
        }
        if (id >= table.length) {
            table = Arrays.copyOf(table, Math.max(id + 1, table.length * 2));
        }
        if (table[id] != null) {
            throw ErrorCode.INVALID_ARGUMENT.exception("chunk id " + id + " is registered already");
        }
        table[id] = new Region(memory, key);
        regions = table;
    }

    /** Whether chunk {@code id} is registered. */
    public boolean holds(int id) {
        Region[] table = regions;
        return id >= 0 && id < table.length && table[id] != null;
    }

    /** Gives the chunk a new key: every credential handed out before stops working. Returns the key. */
    public synchronized long rekey(int id) {
        Region old = regions[id];
        Region fresh = new Region(old.memory(), newKey());
        regions[id] = fresh;
        return fresh.key();
    }

    /** Puts new memory under chunk {@code id} with a new key (old credentials stop working); returns the key. */
    public synchronized long replace(int id, MemorySegment memory) {
        Region fresh = new Region(memory, newKey());
        regions[id] = fresh;
        return fresh.key();
    }

    public synchronized void deregister(int id) {
        regions[id] = null;
    }

    public long key(int id) {
        return regions[id].key();
    }

    public MemorySegment memory(int id) {
        return regions[id].memory();
    }

    /** Offline tables answer every access with SERVER_UNAVAILABLE (a stopped or failed server). */
    public void setOnline(boolean online) {
        this.online = online;
    }

    /** One-sided read: chunk bytes into {@code dst}. Returns an {@link ErrorCode} number. */
    public int read(int id, long key, long offset, MemorySegment dst, long dstOffset, long length) {
        Region region = check(id, key, offset, length);
        if (region == null) {
            return failure(id, key);
        }
        return copy(region.memory(), offset, dst, dstOffset, length);
    }

    /** One-sided write: {@code src} bytes into the chunk. Returns an {@link ErrorCode} number. */
    public int write(int id, long key, long offset, MemorySegment src, long srcOffset, long length) {
        Region region = check(id, key, offset, length);
        if (region == null) {
            return failure(id, key);
        }
        return copy(src, srcOffset, region.memory(), offset, length);
    }

    /**
     * For a transport that moves bytes itself (tcp serving straight from and into chunk
     * memory): the whole chunk's memory if the access to {@code [offset, offset+length)} is
     * allowed, else null; then {@link #status} says why. Key and range are checked
     * against one and the same registration, so a concurrent re-key cannot slip between.
     */
    public MemorySegment checked(int id, long key, long offset, long length) {
        Region region = check(id, key, offset, length);
        return region == null ? null : region.memory();
    }

    /** The {@link ErrorCode} number for an access to chunk {@code id} with {@code key} at that range. */
    public int status(int id, long key, long offset, long length) {
        return check(id, key, offset, length) != null ? OK : failure(id, key);
    }

    private Region check(int id, long key, long offset, long length) {
        Region[] table = regions;
        if (!online || id < 0 || id >= table.length) {
            return null;
        }
        Region region = table[id];
        if (region == null || region.key() != key || offset < 0 || length < 0
                || length > region.memory().byteSize() - offset) {
            return null;
        }
        return region;
    }

    /** Off the fast path: tells which check failed. */
    private int failure(int id, long key) {
        if (!online) {
            return UNAVAILABLE;
        }
        Region[] table = regions;
        if (id < 0 || id >= table.length || table[id] == null || table[id].key() != key) {
            return UNAUTHORIZED;
        }
        return OUT_OF_BOUNDS;
    }

    private int copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long length) {
        try {
            MemorySegment.copy(src, srcOffset, dst, dstOffset, length);
            return OK;
        } catch (IndexOutOfBoundsException e) {
            return OUT_OF_BOUNDS;
        } catch (IllegalStateException e) {
            // the chunk's memory was closed under us: the server is going away
            return UNAVAILABLE;
        }
    }

    /** 64 bits from a CSPRNG: guessing one, at any rate a connection allows, takes longer than the chunk lives. */
    private long newKey() {
        long key;
        do {
            key = random.nextLong();
        } while (key == 0);
        return key;
    }
}

package io.rstore.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Large blocks of zeroed memory for chunks and local arenas, faulted in on the control
 * path (an arena's as its blocks are handed out). On Linux they come from {@code mmap} with {@code madvise(MADV_HUGEPAGE)}, then
 * {@code MADV_POPULATE_WRITE}: the kernel hands out zeroed 2 MiB pages, where
 * {@link Arena#allocate} would fault 4 KiB pages one by one while it zeroes them
 * (docs/measure/notebook.md). Anywhere the calls are missing or fail, it falls back
 * to {@link Arena#allocate}. Needs {@code --enable-native-access=ALL-UNNAMED} to run
 * without the JVM's warning.
 */
@SuppressWarnings("restricted") // native access is the point of this class; the launchers enable it
public final class NativeMemory {
    private static final long HUGE_PAGE = 2L << 20;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final int MADV_POPULATE_WRITE = 23;
    private static final int MADV_DONTNEED = 4;

    private static final MethodHandle MMAP;
    private static final MethodHandle MUNMAP;
    private static final MethodHandle MADVISE;

    static {
        MethodHandle mmap = null;
        MethodHandle munmap = null;
        MethodHandle madvise = null;
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")
                && !Boolean.getBoolean("rstore.memory.noHugePages")) {
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                mmap = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
                munmap = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
                madvise = linker.downcallHandle(libc.find("madvise").orElseThrow(),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
            } catch (Throwable unavailable) { // no native access, or no such symbols: use the JVM's allocator
                mmap = null;
            }
        }
        MMAP = mmap;
        MUNMAP = munmap;
        MADVISE = madvise;
    }

    private NativeMemory() {
    }

    /** Whether blocks come from mmap with huge pages (else from {@link Arena#allocate}). */
    public static boolean usesHugePages() {
        return MMAP != null;
    }

    /** The bytes {@link #allocate} takes for {@code bytes}: whole huge pages from 2 MiB on, whole pages below. */
    public static long footprint(long bytes) {
        long page = MMAP != null && bytes >= HUGE_PAGE ? HUGE_PAGE : 4096;
        return (bytes + page - 1) & -page;
    }

    /**
     * {@code bytes} of zeroed memory, page-aligned, living as long as {@code arena}. Blocks
     * under 2 MiB come from the arena directly.
     */
    public static MemorySegment allocate(Arena arena, long bytes) {
        return allocate(arena, bytes, true);
    }

    /**
     * As {@link #allocate}, but faulted in only where it is touched or {@link #populate}d:
     * for an arena split into blocks, of which a client may use a few megabytes. Memory an
     * RDMA device registers is pinned, and so faulted in, whole anyway.
     */
    public static MemorySegment reserve(Arena arena, long bytes) {
        return allocate(arena, bytes, false);
    }

    private static MemorySegment allocate(Arena arena, long bytes, boolean populate) {
        if (MMAP == null || bytes < HUGE_PAGE) {
            return arena.allocate(bytes, 4096);
        }
        long length = (bytes + HUGE_PAGE - 1) & -HUGE_PAGE;
        try {
            MemorySegment at = (MemorySegment) MMAP.invokeExact(MemorySegment.NULL, length, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
            if (at.address() == -1L) { // MAP_FAILED
                return arena.allocate(bytes, 4096);
            }
            int ignoredIfRefused = (int) MADVISE.invokeExact(at, length, MADV_HUGEPAGE);
            MemorySegment memory = at.reinterpret(length, arena, NativeMemory::unmap);
            if (populate && !populate(memory)) {
                memory.fill((byte) 0); // older kernels: fault it in by hand
            }
            return memory.asSlice(0, bytes);
        } catch (Throwable e) {
            return arena.allocate(bytes, 4096);
        }
    }

    /**
     * Faults in the pages under {@code memory} (of memory from {@link #reserve}) without
     * changing a byte, so the data path that uses it does not; false where the kernel
     * cannot (before Linux 5.14), and the pages fault in as they are touched.
     */
    public static boolean populate(MemorySegment memory) {
        if (MADVISE == null || memory.byteSize() == 0) {
            return false;
        }
        long start = memory.address() & -4096L;
        long end = (memory.address() + memory.byteSize() + 4095) & -4096L;
        try {
            return (int) MADVISE.invokeExact(MemorySegment.ofAddress(start), end - start, MADV_POPULATE_WRITE) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /**
     * Zeroes {@code memory} (of memory from {@link #allocate} or {@link #reserve}, whole
     * pages) by giving its pages back to the kernel, which hands out zeroed ones when they
     * are next touched: a cleared chunk holds no memory until it is used again. False where
     * that cannot be done, and the caller fills it with zeros instead. Never for memory an
     * RDMA device has registered: its pinned pages would stay behind the registration.
     */
    public static boolean discard(MemorySegment memory) {
        if (MADVISE == null || memory.byteSize() == 0 || (memory.address() & 4095) != 0 || (memory.byteSize() & 4095) != 0) {
            return false;
        }
        try {
            return (int) MADVISE.invokeExact(memory, memory.byteSize(), MADV_DONTNEED) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    private static void unmap(MemorySegment memory) {
        try {
            int ignored = (int) MUNMAP.invokeExact(memory, memory.byteSize());
        } catch (Throwable e) {
            throw new IllegalStateException("munmap failed", e);
        }
    }
}

/*
 * What it costs to fault in fresh memory on this machine, for "Loading" in
 * docs/benchmarks.md: populates 1 GiB with 2 MiB pages (as io.rstore.memory.NativeMemory
 * does for chunks: mmap, MADV_HUGEPAGE, MADV_POPULATE_WRITE), frees it, three times. On a
 * VM whose host backs guest memory on first touch, the first round costs several times
 * the others, which reuse pages the guest just freed.
 *
 *   gcc -O2 docs/measure/first_touch.c -o /tmp/first_touch && /tmp/first_touch
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
    size_t size = 1UL << 30;
    for (int round = 1; round <= 3; round++) {
        char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        madvise(p, size, MADV_HUGEPAGE);
        double t = now();
        if (madvise(p, size, MADV_POPULATE_WRITE) != 0) {
            memset(p, 0, size); /* older kernels: fault it in by hand */
        }
        printf("round %d: 1 GiB populated in %.3f s\n", round, now() - t);
        munmap(p, size);
    }
    return 0;
}

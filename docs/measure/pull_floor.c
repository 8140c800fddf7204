/*
 * What one PageRank gather costs in native code on this machine, for the figures in
 * docs/benchmarks.md ("What gathering changed"). Reads a Carafe graph cache file (the
 * layout of io.carafe.graph.GraphHeader/VertexLayout/EdgeLayout), builds its in-edges,
 * and times 8 pull-style sweeps (each vertex adds up its in-neighbours' values) with 1
 * and 2 threads, in three layouts of the value array:
 *
 *   ids      values indexed by vertex id (GAP's pr_spmv on an unrelabelled graph)
 *   slots    two partitions of vertex ids, each numbering its vertices with out-edges by
 *            out-degree, heaviest first, as io.carafe.pregel.Gather does
 *   relabel  the whole graph renumbered by in+out degree, heaviest first
 *
 * It also prints the share of all edges that leave the top-K vertices by out-degree.
 *
 *   gcc -O3 -march=native -fopenmp docs/measure/pull_floor.c -o /tmp/pull_floor
 *   /tmp/pull_floor ~/.cache/carafe/graphs/generated-rmat-4847571-68993773-1-*.carafe
 */
#include <fcntl.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int64_t n, m;
static int64_t *first;   /* out-edges: first[v] .. first[v + 1] */
static int32_t *target;
static int32_t *degree;

/* Positions 0.. by key descending among vertices with key > 0 (a counting sort, ties by id); -1 for key 0. */
static int64_t rank_by(const int64_t *key, int64_t from, int64_t to, int64_t base, int32_t *position) {
    int64_t max = 0;
    for (int64_t v = from; v < to; v++) if (key[v] > max) max = key[v];
    int64_t *next = calloc(max + 2, sizeof *next);
    for (int64_t v = from; v < to; v++) next[key[v]]++;
    int64_t at = base;
    for (int64_t k = max; k >= 1; k--) { int64_t c = next[k]; next[k] = at; at += c; }
    for (int64_t v = from; v < to; v++) position[v] = key[v] > 0 ? (int32_t) next[key[v]]++ : -1;
    free(next);
    return at - base;
}

/* Times 8 sweeps over in-edges whose sources are array positions; returns seconds per 32. */
static double sweep(const int64_t *in_first, const int32_t *source, int64_t slots, int threads) {
    double *value = malloc(slots * sizeof *value), *sum = malloc(n * sizeof *sum);
    for (int64_t i = 0; i < slots; i++) value[i] = 1.0 / n;
    omp_set_num_threads(threads);
    double t = now();
    for (int iteration = 0; iteration < 8; iteration++) {
        #pragma omp parallel for schedule(dynamic, 16384)
        for (int64_t u = 0; u < n; u++) {
            double acc = 0;
            for (int64_t e = in_first[u]; e < in_first[u + 1]; e++) acc += value[source[e]];
            sum[u] = acc;
        }
    }
    double seconds = (now() - t) / 8 * 32;
    free(value);
    free(sum);
    return seconds;
}

/* In-edges of every vertex u (in the numbering `position` of targets) with sources as `slot` positions. */
static void in_edges(const int32_t *slot, const int32_t *position, int64_t *in_first, int32_t *source) {
    memset(in_first, 0, (n + 1) * sizeof *in_first);
    for (int64_t e = 0; e < m; e++) in_first[position[target[e]] + 1]++;
    for (int64_t u = 0; u < n; u++) in_first[u + 1] += in_first[u];
    int64_t *fill = malloc(n * sizeof *fill);
    memcpy(fill, in_first, n * sizeof *fill);
    for (int64_t v = 0; v < n; v++)
        for (int64_t e = first[v]; e < first[v + 1]; e++) source[fill[position[target[e]]]++] = slot[v];
    free(fill);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s GRAPH.carafe\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 1; }
    off_t size = lseek(fd, 0, SEEK_END);
    const char *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    n = *(const int64_t *) (file + 24);
    m = *(const int64_t *) (file + 32);
    int64_t vertices_at = *(const int64_t *) (file + 56), edges_at = *(const int64_t *) (file + 64);
    first = malloc((n + 1) * sizeof *first);
    degree = malloc(n * sizeof *degree);
    for (int64_t v = 0; v < n; v++) {
        first[v] = *(const int64_t *) (file + vertices_at + v * 32 + 8);
        degree[v] = *(const int32_t *) (file + vertices_at + v * 32 + 16);
    }
    first[n] = m;
    target = (int32_t *) (file + edges_at);
    printf("%s: %ld vertices, %ld edges\n", argv[1], (long) n, (long) m);

    int64_t *key = calloc(n, sizeof *key);
    int32_t *slot = malloc(n * sizeof *slot), *identity = malloc(n * sizeof *identity), *position = malloc(n * sizeof *position);
    int64_t *in_first = malloc((n + 1) * sizeof *in_first);
    int32_t *source = malloc(m * sizeof *source);
    for (int64_t v = 0; v < n; v++) { identity[v] = (int32_t) v; key[v] = degree[v]; }

    /* the share of edges leaving the heaviest senders */
    int32_t *order = malloc(n * sizeof *order);
    rank_by(key, 0, n, 0, position);
    for (int64_t v = 0; v < n; v++) if (position[v] >= 0) order[position[v]] = degree[v];
    int64_t senders = 0, acc = 0, mark = 16384;
    for (int64_t v = 0; v < n; v++) if (degree[v] > 0) senders++;
    for (int64_t i = 0; i < senders && mark <= senders; i++) {
        acc += order[i];
        if (i + 1 == mark) { printf("top %8ld senders: %5.1f%% of edges\n", (long) mark, 100.0 * acc / m); mark *= 2; }
    }

    for (int threads = 1; threads <= 2; threads++) {
        in_edges(identity, identity, in_first, source);
        printf("ids      %d thread(s): %6.2f s per 32 iterations\n", threads, sweep(in_first, source, n, threads));

        int64_t half = n / 2, slots0 = rank_by(key, 0, half, 0, slot);
        int64_t base1 = (slots0 + 63) & ~63L, slots1 = rank_by(key, half, n, base1, slot);
        in_edges(slot, identity, in_first, source);
        printf("slots    %d thread(s): %6.2f s per 32 iterations\n", threads, sweep(in_first, source, base1 + slots1, threads));

        for (int64_t v = 0; v < n; v++) key[v] = degree[v] + 1;
        for (int64_t e = 0; e < m; e++) key[target[e]]++;
        rank_by(key, 0, n, 0, position); /* every vertex has key >= 1: a permutation */
        in_edges(position, position, in_first, source);
        printf("relabel  %d thread(s): %6.2f s per 32 iterations\n", threads, sweep(in_first, source, n, threads));
        for (int64_t v = 0; v < n; v++) key[v] = degree[v];
    }
    return 0;
}

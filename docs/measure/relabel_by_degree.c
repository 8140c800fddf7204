// Writes a gapbs serialized graph (.sg: directed, unweighted) back out as an edge list whose
// vertices are numbered by out-degree, descending (ties by id): the "relabel by degree"
// experiment of benchmarks.md ("Degree order and precision"). Measurement only, not shipped.
//
//   cc -O2 docs/measure/relabel_by_degree.c -o /tmp/relabel
//   /tmp/relabel ~/.cache/carafe/graphs/gapbs/<livejournal-synthetic>.sg /tmp/lj-deg.txt
//   seq 0 4847570 > /tmp/vertices.txt                  # every id, isolated ones too
//   bin/carafe import -g /tmp/lj-deg.txt --vertices /tmp/vertices.txt
//   bin/carafe pagerank --graph /tmp/lj-deg.txt --vertices /tmp/vertices.txt --iterations 32 [--algorithm pull]
//   tail -n +2 /tmp/lj-deg.txt > /tmp/lj-deg.el && gapbs/converter -f /tmp/lj-deg.el -b /tmp/lj-deg.sg
//
// The .sg layout (gapbs's reader): bool directed, int64 edges, int64 nodes, int64 offsets[nodes + 1],
// int32 neighbours[edges], then the same for in-edges when directed (not needed here).
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int32_t *degree;

static int by_degree_then_id(const void *a, const void *b) {
    int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
    if (degree[x] != degree[y]) {
        return degree[x] > degree[y] ? -1 : 1;
    }
    return x < y ? -1 : x > y;
}

static void read_or_die(void *into, size_t size, size_t count, FILE *f, const char *what) {
    if (fread(into, size, count, f) != count) {
        fprintf(stderr, "short read of %s\n", what);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s GRAPH.sg OUT.txt\n", argv[0]);
        return 2;
    }
    FILE *in = fopen(argv[1], "rb");
    if (in == NULL) {
        perror(argv[1]);
        return 1;
    }
    bool directed;
    int64_t edges, nodes;
    read_or_die(&directed, sizeof directed, 1, in, "the header");
    read_or_die(&edges, sizeof edges, 1, in, "the header");
    read_or_die(&nodes, sizeof nodes, 1, in, "the header");
    int64_t *offset = malloc(sizeof *offset * (nodes + 1));
    int32_t *target = malloc(sizeof *target * edges);
    degree = malloc(sizeof *degree * nodes);
    int32_t *order = malloc(sizeof *order * nodes);
    int32_t *rank = malloc(sizeof *rank * nodes);
    if (!offset || !target || !degree || !order || !rank) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    read_or_die(offset, sizeof *offset, nodes + 1, in, "the offsets");
    read_or_die(target, sizeof *target, edges, in, "the neighbours");
    fclose(in);
    for (int64_t v = 0; v < nodes; v++) {
        degree[v] = (int32_t) (offset[v + 1] - offset[v]);
        order[v] = (int32_t) v;
    }
    qsort(order, nodes, sizeof *order, by_degree_then_id);
    for (int64_t i = 0; i < nodes; i++) {
        rank[order[i]] = (int32_t) i;
    }
    FILE *out = fopen(argv[2], "w");
    if (out == NULL) {
        perror(argv[2]);
        return 1;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 24);
    fprintf(out, "# %s renumbered by out-degree, descending\n", argv[1]);
    for (int64_t u = 0; u < nodes; u++) {
        for (int64_t e = offset[u]; e < offset[u + 1]; e++) {
            fprintf(out, "%d\t%d\n", rank[u], rank[target[e]]);
        }
    }
    if (fclose(out) != 0) {
        perror(argv[2]);
        return 1;
    }
    fprintf(stderr, "%s: %s, %lld vertices, %lld edges\n", argv[2], directed ? "directed" : "undirected", (long long) nodes, (long long) edges);
    return 0;
}

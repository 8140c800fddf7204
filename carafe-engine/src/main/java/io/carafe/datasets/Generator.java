package io.carafe.datasets;

import io.carafe.importer.GraphBuilder;

import java.util.SplittableRandom;

/**
 * Deterministic synthetic graphs: R-MAT with Graph500's parameters (a=0.57, b=0.19,
 * c=0.19), as gapbs {@code -g} makes them, uniform random graphs, and square grids (a road
 * network's long diameter). Vertex ids are 0..n-1 (all present, isolated ones too); R-MAT's
 * are shuffled by a seeded permutation so that its heavy vertices are not the low ids, a
 * grid's run row by row (a road network's ids keep locality too). The same seed gives the
 * same graph.
 */
public final class Generator {
    private static final int A = (int) (0.57 * 65536);
    private static final int AB = (int) ((0.57 + 0.19) * 65536);
    private static final int ABC = (int) ((0.57 + 0.19 + 0.19) * 65536);

    private Generator() {
    }

    /** Feeds {@code vertices} vertices and {@code edges} R-MAT edges into the builder. */
    public static void rmat(GraphBuilder out, long vertices, long edges, long seed) {
        int n = checkVertices(vertices);
        int scale = 64 - Long.numberOfLeadingZeros(n - 1L);
        int[] label = permutation(n, seed);
        for (int v = 0; v < n; v++) {
            out.vertex(v);
        }
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (long e = 0; e < edges; ) {
            long u = 0;
            long v = 0;
            long bits = 0;
            for (int level = 0; level < scale; level++) {
                if ((level & 3) == 0) {
                    bits = random.nextLong(); // four 16-bit draws per 64-bit number
                }
                int r = (int) (bits & 0xFFFF);
                bits >>>= 16;
                u <<= 1;
                v <<= 1;
                if (r >= ABC) {
                    u |= 1;
                    v |= 1;
                } else if (r >= AB) {
                    u |= 1;
                } else if (r >= A) {
                    v |= 1;
                }
            }
            if (u < n && v < n) { // the 2^scale square is cut to n: redraw what falls outside
                out.edge(label[(int) u], label[(int) v], 1.0);
                e++;
            }
        }
    }

    /** Feeds {@code vertices} vertices and {@code edges} uniformly random edges into the builder. */
    public static void uniform(GraphBuilder out, long vertices, long edges, long seed) {
        int n = checkVertices(vertices);
        for (int v = 0; v < n; v++) {
            out.vertex(v);
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (long e = 0; e < edges; e++) {
            out.edge(random.nextInt(n), random.nextInt(n), 1.0);
        }
    }

    /** A grid's edge lines: each of the 2·s·(s−1) neighbouring pairs both ways, for s × s vertices. */
    public static long gridEdges(long vertices) {
        long side = gridSide(vertices);
        return 4 * side * (side - 1);
    }

    /**
     * Feeds an s × s grid, {@code vertices} = s², into the builder: vertex r·s + c joined to
     * the next in its row and in its column, both ways, so the diameter is 2(s−1). No seed:
     * there is one grid of each size.
     */
    public static void grid(GraphBuilder out, long vertices) {
        int n = checkVertices(vertices);
        int side = (int) gridSide(vertices);
        for (int v = 0; v < n; v++) {
            out.vertex(v);
        }
        for (int v = 0; v < n; v++) {
            if (v % side + 1 < side) {
                out.edge(v, v + 1, 1.0);
                out.edge(v + 1, v, 1.0);
            }
            if (v + side < n) {
                out.edge(v, v + side, 1.0);
                out.edge(v + side, v, 1.0);
            }
        }
    }

    private static long gridSide(long vertices) {
        long side = (long) Math.sqrt((double) vertices);
        while (side * side > vertices) {
            side--;
        }
        while ((side + 1) * (side + 1) <= vertices) {
            side++;
        }
        if (side * side != vertices) {
            throw new IllegalArgumentException("a grid has a square number of vertices, not " + vertices + ": try " + side * side + " or "
                    + (side + 1) * (side + 1));
        }
        return side;
    }

    private static int checkVertices(long vertices) {
        if (vertices < 1 || vertices > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a generated graph needs 1 to 2^31 vertices, was " + vertices);
        }
        return (int) vertices;
    }

    private static int[] permutation(int n, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }
}

package io.carafe.algorithms.references;

import io.carafe.graph.EdgeLayout;
import io.carafe.graph.VertexLayout;
import io.carafe.importer.GraphFile;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * Independent sequential references for every algorithm, behind {@code --verify} and the
 * tests: plain loops over the graph file in local memory with the textbook algorithms
 * (Dijkstra with a lazy-deletion priority queue of boxed entries, BFS with an ArrayDeque,
 * power iteration, union-find, Tarjan, sorted-list intersection), slow and simple on
 * purpose, sharing no code with the engine, the vertex programs, the online API's
 * algorithms or the resident kernels. Results use original ids where the programs'
 * outputs do.
 */
public final class References {
    private References() {
    }

    /** Out-neighbours (CSR) of the graph file. */
    private record Csr(int n, int[] start, int[] target) {
        static Csr out(GraphFile g) {
            int n = (int) g.header().vertexCount();
            int[] start = new int[n + 1];
            int[] target = new int[(int) g.header().edgeCount()];
            int at = 0;
            for (int v = 0; v < n; v++) {
                long first = VertexLayout.firstEdge(g.vertices(), v);
                int degree = VertexLayout.degree(g.vertices(), v);
                for (long e = first; e < first + degree; e++) {
                    target[at++] = EdgeLayout.target(g.edges(), e);
                }
                start[v + 1] = at;
            }
            return new Csr(n, start, target);
        }

        Csr reversed() {
            int[] rs = new int[n + 1];
            for (int t : target) {
                rs[t + 1]++;
            }
            for (int v = 0; v < n; v++) {
                rs[v + 1] += rs[v];
            }
            int[] next = Arrays.copyOf(rs, n);
            int[] rt = new int[target.length];
            for (int v = 0; v < n; v++) {
                for (int e = start[v]; e < start[v + 1]; e++) {
                    rt[next[target[e]]++] = v;
                }
            }
            return new Csr(n, rs, rt);
        }
    }

    private static long[] originalIds(GraphFile g) {
        long[] ids = new long[(int) g.header().vertexCount()];
        for (int v = 0; v < ids.length; v++) {
            ids[v] = VertexLayout.originalId(g.vertices(), v);
        }
        return ids;
    }

    /** Weakly connected components by union-find; each vertex's label is the smallest original id of its component. */
    public static long[] weakComponents(GraphFile g) {
        Csr out = Csr.out(g);
        int[] parent = new int[out.n()];
        for (int v = 0; v < parent.length; v++) {
            parent[v] = v;
        }
        for (int v = 0; v < out.n(); v++) {
            for (int e = out.start()[v]; e < out.start()[v + 1]; e++) {
                int a = find(parent, v);
                int b = find(parent, out.target()[e]);
                if (a != b) {
                    parent[Math.max(a, b)] = Math.min(a, b); // the root stays the smallest id
                }
            }
        }
        long[] ids = originalIds(g);
        long[] label = new long[out.n()];
        for (int v = 0; v < label.length; v++) {
            label[v] = ids[find(parent, v)];
        }
        return label;
    }

    private static int find(int[] parent, int v) {
        while (parent[v] != v) {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        return v;
    }

    /**
     * CDLP as LDBC specifies it: synchronous rounds over the labels of in- and
     * out-neighbours (on a directed graph; both lists are the same on an undirected one),
     * most frequent first, smallest on ties; counted with a hash map per vertex.
     */
    public static long[] labelPropagation(GraphFile g, int iterations) {
        Csr out = Csr.out(g);
        Csr in = g.header().directed() ? out.reversed() : null;
        long[] label = originalIds(g);
        long[] next = new long[label.length];
        Long2IntOpenHashMap counts = new Long2IntOpenHashMap();
        for (int it = 0; it < iterations; it++) {
            for (int v = 0; v < out.n(); v++) {
                boolean large = counts.size() > 1024;
                counts.clear(); // clears the whole table: after a hub's, shrink it, or every vertex after pays for the hub
                if (large) {
                    counts.trim();
                }
                for (int e = out.start()[v]; e < out.start()[v + 1]; e++) {
                    counts.addTo(label[out.target()[e]], 1);
                }
                if (in != null) {
                    for (int e = in.start()[v]; e < in.start()[v + 1]; e++) {
                        counts.addTo(label[in.target()[e]], 1);
                    }
                }
                long best = label[v];
                int bestCount = 0;
                for (Long2IntOpenHashMap.Entry c : counts.long2IntEntrySet()) {
                    if (c.getIntValue() > bestCount || (c.getIntValue() == bestCount && c.getLongKey() < best)) {
                        best = c.getLongKey();
                        bestCount = c.getIntValue();
                    }
                }
                next[v] = best;
            }
            long[] swap = label;
            label = next;
            next = swap;
        }
        return label;
    }

    /** Sorted distinct neighbours (in ∪ out, without v) of every vertex. */
    private static int[][] neighbourhoods(Csr out) {
        Csr in = out.reversed();
        int[][] nbr = new int[out.n()][];
        for (int v = 0; v < out.n(); v++) {
            int[] all = new int[out.start()[v + 1] - out.start()[v] + in.start()[v + 1] - in.start()[v]];
            int k = 0;
            for (int e = out.start()[v]; e < out.start()[v + 1]; e++) {
                all[k++] = out.target()[e];
            }
            for (int e = in.start()[v]; e < in.start()[v + 1]; e++) {
                all[k++] = in.target()[e];
            }
            int self = v;
            nbr[v] = Arrays.stream(all).filter(x -> x != self).sorted().distinct().toArray();
        }
        return nbr;
    }

    /**
     * LCC as LDBC defines it: for each vertex, the directed edges among its neighbours
     * (each ordered pair u ≠ w of neighbours with an edge u→w), over |N|·(|N|−1).
     */
    public static double[] clusteringCoefficients(GraphFile g) {
        Csr out = Csr.out(g);
        int[][] nbr = neighbourhoods(out);
        int[][] outSorted = new int[out.n()][];
        for (int v = 0; v < out.n(); v++) {
            outSorted[v] = Arrays.stream(out.target(), out.start()[v], out.start()[v + 1]).sorted().distinct().toArray();
        }
        double[] lcc = new double[out.n()];
        for (int v = 0; v < out.n(); v++) {
            int d = nbr[v].length;
            if (d < 2) {
                continue;
            }
            long edges = 0;
            for (int u : nbr[v]) {
                edges += intersect(outSorted[u], nbr[v], u);
            }
            lcc[v] = edges / ((double) d * (d - 1));
        }
        return lcc;
    }

    /** Triangles through each vertex on the undirected view (neighbourhoods intersected). */
    public static long[] triangles(GraphFile g) {
        int[][] nbr = neighbourhoods(Csr.out(g));
        long[] count = new long[nbr.length];
        for (int v = 0; v < nbr.length; v++) {
            long pairs = 0;
            for (int u : nbr[v]) {
                pairs += intersect(nbr[u], nbr[v], -1);
            }
            count[v] = pairs / 2; // each triangle {v, u, w} was seen from u and from w
        }
        return count;
    }

    /** |a ∩ b| without {@code skip}; both sorted and distinct. */
    private static long intersect(int[] a, int[] b, int skip) {
        long n = 0;
        for (int i = 0, j = 0; i < a.length && j < b.length; ) {
            if (a[i] < b[j]) {
                i++;
            } else if (a[i] > b[j]) {
                j++;
            } else {
                if (a[i] != skip) {
                    n++;
                }
                i++;
                j++;
            }
        }
        return n;
    }

    /** Strongly connected components by Tarjan's algorithm (iterative); label = smallest original id of the component. */
    public static long[] strongComponents(GraphFile g) {
        Csr out = Csr.out(g);
        int n = out.n();
        int[] index = new int[n];
        int[] low = new int[n];
        Arrays.fill(index, -1);
        boolean[] onStack = new boolean[n];
        int[] stack = new int[n];
        int top = 0;
        int[] callVertex = new int[n];
        int[] callEdge = new int[n];
        int counter = 0;
        int[] component = new int[n];
        for (int root = 0; root < n; root++) {
            if (index[root] >= 0) {
                continue;
            }
            int depth = 0;
            callVertex[0] = root;
            callEdge[0] = out.start()[root];
            index[root] = low[root] = counter++;
            stack[top++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int v = callVertex[depth];
                if (callEdge[depth] < out.start()[v + 1]) {
                    int w = out.target()[callEdge[depth]++];
                    if (index[w] < 0) {
                        index[w] = low[w] = counter++;
                        stack[top++] = w;
                        onStack[w] = true;
                        depth++;
                        callVertex[depth] = w;
                        callEdge[depth] = out.start()[w];
                    } else if (onStack[w]) {
                        low[v] = Math.min(low[v], index[w]);
                    }
                    continue;
                }
                if (low[v] == index[v]) {
                    int smallest = Integer.MAX_VALUE;
                    int from = top;
                    do {
                        from--;
                        smallest = Math.min(smallest, stack[from]);
                    } while (stack[from] != v);
                    for (int i = from; i < top; i++) {
                        component[stack[i]] = smallest;
                        onStack[stack[i]] = false;
                    }
                    top = from;
                }
                depth--;
                if (depth >= 0) {
                    int parent = callVertex[depth];
                    low[parent] = Math.min(low[parent], low[v]);
                }
            }
        }
        long[] ids = originalIds(g);
        long[] label = new long[n];
        for (int v = 0; v < n; v++) {
            label[v] = ids[component[v]];
        }
        return label;
    }

    /** Distances from {@code source} over the edges' weights (1 without weights): Dijkstra; unreached is infinity. */
    public static double[] shortestDistances(GraphFile g, int source) {
        int n = (int) g.header().vertexCount();
        double[] distance = new double[n];
        Arrays.fill(distance, Double.POSITIVE_INFINITY);
        distance[source] = 0;
        record Entry(double d, int v) {
        }
        PriorityQueue<Entry> queue = new PriorityQueue<>((a, b) -> Double.compare(a.d, b.d));
        queue.add(new Entry(0, source));
        while (!queue.isEmpty()) {
            Entry e = queue.poll();
            if (e.d > distance[e.v]) {
                continue;
            }
            long first = VertexLayout.firstEdge(g.vertices(), e.v);
            for (long i = first; i < first + VertexLayout.degree(g.vertices(), e.v); i++) {
                int t = EdgeLayout.target(g.edges(), i);
                double d = e.d + (g.weights() == null ? 1.0 : g.header().weight(g.weights(), i));
                if (d < distance[t]) {
                    distance[t] = d;
                    queue.add(new Entry(d, t));
                }
            }
        }
        return distance;
    }

    /** Hops from {@code source} along out-edges: a queue; unreached is -1. */
    public static int[] bfsDepths(GraphFile g, int source) {
        int n = (int) g.header().vertexCount();
        int[] depth = new int[n];
        Arrays.fill(depth, -1);
        depth[source] = 0;
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        queue.add(source);
        while (!queue.isEmpty()) {
            int u = queue.poll();
            long first = VertexLayout.firstEdge(g.vertices(), u);
            for (long i = first; i < first + VertexLayout.degree(g.vertices(), u); i++) {
                int t = EdgeLayout.target(g.edges(), i);
                if (depth[t] < 0) {
                    depth[t] = depth[u] + 1;
                    queue.add(t);
                }
            }
        }
        return depth;
    }

    /**
     * PageRank by plain power iteration, pushing rank along out-edges array by array: the
     * sums run in another order than the engine's, so results agree to rounding, not bit
     * for bit. Dangling rank is spread over every vertex, or dropped.
     */
    public static double[] pageRank(GraphFile g, double damping, int iterations, boolean dropDangling) {
        int n = (int) g.header().vertexCount();
        double[] rank = new double[n];
        double[] next = new double[n];
        Arrays.fill(rank, 1.0 / n);
        for (int it = 0; it < iterations; it++) {
            double dangling = 0;
            Arrays.fill(next, 0);
            for (int u = 0; u < n; u++) {
                int degree = VertexLayout.degree(g.vertices(), u);
                if (degree == 0) {
                    dangling += rank[u];
                    continue;
                }
                double share = rank[u] / degree;
                long first = VertexLayout.firstEdge(g.vertices(), u);
                for (long e = first; e < first + degree; e++) {
                    next[EdgeLayout.target(g.edges(), e)] += share;
                }
            }
            double base = (1 - damping) / n + (dropDangling ? 0 : damping * dangling / n);
            for (int v = 0; v < n; v++) {
                next[v] = base + damping * next[v];
            }
            double[] swap = rank;
            rank = next;
            next = swap;
        }
        return rank;
    }
}

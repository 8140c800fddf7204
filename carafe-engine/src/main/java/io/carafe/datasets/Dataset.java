package io.carafe.datasets;

/**
 * One entry of the dataset catalog ({@code datasets/catalog.tsv}).
 *
 * @param name        what users type after {@code --graph}
 * @param file        the file's name (SNAP's) or, for generated graphs, the graph's
 * @param url         where to download it; {@code generate:KIND} for generated graphs
 * @param generated   made by Carafe's generator rather than downloaded
 * @param undirected  import with both directions stored
 * @param vertices    SNAP's vertex count
 * @param edgeLines   SNAP's edge count as lines in the file
 * @param sha256      checksum of {@code file}, or empty when unknown
 * @param description one line for people
 */
public record Dataset(String name, String file, String url, boolean generated, boolean undirected, long vertices,
                      long edgeLines, String sha256, String description) {
}

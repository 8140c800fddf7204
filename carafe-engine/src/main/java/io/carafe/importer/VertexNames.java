package io.carafe.importer;

import it.unimi.dsi.fastutil.objects.Object2LongOpenHashMap;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Vertex names of a graph imported with string ids ({@code alice bob}, as NetworkX and
 * Neo4j take edge lists): each name gets the next number, in the order names first appear,
 * and that number is the vertex's original id in the graph file. The names are kept beside
 * the cache file ({@code FILE.carafe.names}, one a line, by original id), so commands read
 * {@code --source alice} and write names wherever they write ids.
 */
public final class VertexNames {
    private final Object2LongOpenHashMap<String> ids = new Object2LongOpenHashMap<>();
    private final List<String> names = new ArrayList<>();
    /** While importing: whether ids are names (null until the first data line decides, with --ids auto). */
    Boolean named;

    public VertexNames() {
        ids.defaultReturnValue(-1);
    }

    /** The number of {@code name}, given it if new. */
    long id(String name) {
        long id = ids.getLong(name);
        if (id < 0) {
            id = names.size();
            ids.put(name, id);
            names.add(name);
        }
        return id;
    }

    /** The original id named {@code name}, or -1. */
    public long find(String name) {
        return ids.getLong(name);
    }

    /** The name of original id {@code id}. */
    public String name(long id) {
        return names.get((int) id);
    }

    public int size() {
        return names.size();
    }

    /** Where the names of the graph cached at {@code graphFile} are kept. */
    public static Path beside(Path graphFile) {
        return graphFile.resolveSibling(graphFile.getFileName() + ".names");
    }

    /** Writes the names to {@code file} whole (through a partial file renamed into place). */
    void write(Path file) throws IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (BufferedWriter out = Files.newBufferedWriter(partial, StandardCharsets.UTF_8)) {
            for (String name : names) {
                out.write(name);
                out.write('\n');
            }
        }
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The names kept beside {@code graphFile}, or null if the graph has integer ids. */
    public static VertexNames read(Path graphFile) {
        Path file = beside(graphFile);
        if (!Files.exists(file)) {
            return null;
        }
        VertexNames read = new VertexNames();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                read.id(line);
            }
        } catch (IOException e) {
            throw new GraphImportException(file, "cannot read the vertex names kept with the cached graph: " + e.getMessage(), e);
        }
        return read;
    }
}

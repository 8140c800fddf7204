package io.carafe.importer;

import io.carafe.graph.GraphHeader;
import io.carafe.graph.VertexLayout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A graph's binary file (the import cache), mapped read-only: the header and the
 * vertex-record, target and weight sections (and a directed graph's in-edges), in the
 * layouts of {@link io.carafe.graph}.
 */
public final class GraphFile implements AutoCloseable {
    private final Path path;
    private final Arena arena;
    private final GraphHeader header;
    private final MemorySegment[] sections = new MemorySegment[GraphHeader.Section.values().length];

    private GraphFile(Path path, Arena arena, GraphHeader header, MemorySegment all) {
        this.path = path;
        this.arena = arena;
        this.header = header;
        for (GraphHeader.Section s : GraphHeader.Section.values()) {
            sections[s.ordinal()] = header.has(s) ? all.asSlice(header.at(s), header.bytes(s)) : null;
        }
    }

    /** Opens a graph file; {@code null} when it is not a complete graph file of this version. */
    public static GraphFile open(Path path) {
        Arena arena = Arena.ofShared();
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < GraphHeader.BYTES) {
                arena.close();
                return null;
            }
            MemorySegment all = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            GraphHeader header = GraphHeader.readFrom(all);
            if (header == null || header.state() != GraphHeader.COMPLETE || !fits(header, size)) {
                arena.close();
                return null;
            }
            return new GraphFile(path, arena, header, all);
        } catch (IOException e) {
            arena.close();
            return null;
        }
    }

    private static boolean fits(GraphHeader h, long size) {
        if (h.vertexCount() < 0 || h.edgeCount() < 0) {
            return false;
        }
        for (GraphHeader.Section s : GraphHeader.Section.values()) {
            if (h.has(s) && (h.at(s) < GraphHeader.BYTES || h.at(s) + h.bytes(s) > size)) {
                return false;
            }
        }
        return true;
    }

    public Path path() {
        return path;
    }

    public GraphHeader header() {
        return header;
    }

    /** A section of the file; null when the graph has none (see {@link GraphHeader#has}). */
    public MemorySegment section(GraphHeader.Section s) {
        return sections[s.ordinal()];
    }

    public MemorySegment vertices() {
        return section(GraphHeader.Section.VERTICES);
    }

    public MemorySegment edges() {
        return section(GraphHeader.Section.EDGES);
    }

    /** Null when the graph has no weights (every edge weighs 1). */
    public MemorySegment weights() {
        return section(GraphHeader.Section.WEIGHTS);
    }

    /** The internal id of {@code originalId}, or -1: the vertex records are in original id order. */
    public int vertexId(long originalId) {
        return VertexLayout.find(vertices(), (int) header.vertexCount(), originalId, record -> { }); // the file is in memory
    }

    @Override
    public void close() {
        arena.close();
    }
}

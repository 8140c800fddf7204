package io.carafe.importer;

import io.carafe.graph.GraphHeader;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A graph's binary file (the import cache), mapped read-only: the header and the
 * vertex-record, target and weight sections, in the layouts of {@link io.carafe.graph}.
 */
public final class GraphFile implements AutoCloseable {
    private final Path path;
    private final Arena arena;
    private final GraphHeader header;
    private final MemorySegment vertices;
    private final MemorySegment edges;
    private final MemorySegment weights;

    private GraphFile(Path path, Arena arena, GraphHeader header, MemorySegment all) {
        this.path = path;
        this.arena = arena;
        this.header = header;
        this.vertices = all.asSlice(header.verticesAt(), header.verticesBytes());
        this.edges = all.asSlice(header.edgesAt(), header.edgesBytes());
        this.weights = header.weighted() ? all.asSlice(header.weightsAt(), header.weightsBytes()) : null;
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
        return h.vertexCount() >= 0 && h.edgeCount() >= 0
                && h.verticesAt() + h.verticesBytes() <= size && h.edgesAt() + h.edgesBytes() <= size
                && (!h.weighted() || h.weightsAt() + h.weightsBytes() <= size);
    }

    public Path path() {
        return path;
    }

    public GraphHeader header() {
        return header;
    }

    public MemorySegment vertices() {
        return vertices;
    }

    public MemorySegment edges() {
        return edges;
    }

    /** Null when the graph has no weights (every edge weighs 1). */
    public MemorySegment weights() {
        return weights;
    }

    @Override
    public void close() {
        arena.close();
    }
}

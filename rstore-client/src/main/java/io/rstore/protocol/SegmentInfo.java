package io.rstore.protocol;

import java.util.List;

/**
 * An allocated segment and the chunks that cover it, in address order.
 *
 * @param namespaceId    the namespace
 * @param address        first byte of the segment in the namespace's address space
 * @param length         bytes in the segment
 * @param chunkSizeBytes size of every chunk (a power of two)
 * @param chunks         the chunks covering {@code [address, address+length)}
 */
public record SegmentInfo(long namespaceId, long address, long length, long chunkSizeBytes, List<ChunkLocation> chunks) {
    public SegmentInfo {
        chunks = List.copyOf(chunks);
    }
}

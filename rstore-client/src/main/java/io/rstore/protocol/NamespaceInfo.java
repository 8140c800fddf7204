package io.rstore.protocol;

import io.rstore.NamespaceFlags;

/**
 * What the master knows of a namespace.
 *
 * @param id            stable id, never reused, so handles to a deleted namespace fail
 * @param name          the name clients create and join it by
 * @param reservedBytes DRAM reserved (a whole number of chunks)
 * @param allocatedBytes bytes in allocated segments
 * @param segments      number of allocated segments
 * @param mappedSegments segments mapped by at least one client
 * @param flags         {@link io.rstore.NamespaceFlags} it was created with
 */
public record NamespaceInfo(long id, String name, long reservedBytes, long allocatedBytes, int segments, int mappedSegments, int flags) {

    /** Whether it takes chunks only from memory servers that keep them in files ({@link io.rstore.NamespaceFlags#DURABLE}). */
    public boolean durable() {
        return (flags & NamespaceFlags.DURABLE) != 0;
    }
}

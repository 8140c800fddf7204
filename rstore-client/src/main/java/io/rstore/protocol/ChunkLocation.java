package io.rstore.protocol;

/**
 * Where one chunk of a namespace's address space lives: the credentials a client needs
 * for one-sided access, handed out by the master.
 *
 * @param index    position of the chunk in the namespace (it covers {@code [index·C, (index+1)·C)})
 * @param serverId the memory server holding it
 * @param chunkId  the chunk's registration on that server
 * @param key      access key checked on every operation
 */
public record ChunkLocation(int index, int serverId, int chunkId, long key) {
}

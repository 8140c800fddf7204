package io.rstore.protocol.wire;

/** The name of each call type of docs/protocol.md, as metrics and logs show it. */
public final class CallNames {
    private static final String[] MASTER = {"", "openSession", "closeSession", "chunkSizeBytes", "servers", "createNamespace", "joinNamespace",
            "deleteNamespace", "namespaceInfo", "namespaces", "reserve", "release", "alloc", "allocAt", "free", "lookup", "map", "unmap",
            "clients", "registerServer", "allocFromFile", "clusterInfo", "persist"};
    private static final String[] CHUNK = {"allocateChunk", "recycle", "zero", "releaseChunk", "describe", "persistChunk", "populate"};

    private CallNames() {
    }

    /** The call's name, or {@code call<type>} for a type this version does not know. */
    public static String name(int type) {
        if (type > 0 && type < MASTER.length) {
            return MASTER[type];
        }
        if (type >= ChunkCalls.FIRST && type <= ChunkCalls.LAST) {
            return CHUNK[type - ChunkCalls.FIRST];
        }
        return "call" + type;
    }
}

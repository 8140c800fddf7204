package io.rstore.embedded;

import io.rstore.ErrorCode;
import io.rstore.RStore;
import io.rstore.RStoreSettings;
import io.rstore.spi.ClusterProvider;

import java.net.URI;
import java.util.Set;

/** Serves {@code RStore.embedded(...)} and {@code inproc://NAME} URIs. */
public final class EmbeddedClusterProvider implements ClusterProvider {

    @Override
    public Set<String> schemes() {
        return Set.of("inproc");
    }

    @Override
    public RStore connect(URI uri, RStoreSettings settings) {
        String name = uri.getAuthority();
        EmbeddedCluster cluster = name == null ? null : EmbeddedCluster.find(name);
        if (cluster == null) {
            throw ErrorCode.MASTER_UNAVAILABLE.exception("no embedded cluster named '" + name + "' runs in this JVM; start one with RStore.embedded(settings)");
        }
        return cluster.connect("client of " + uri);
    }

    @Override
    public RStore embedded(RStoreSettings settings) {
        EmbeddedCluster cluster = EmbeddedCluster.startUniquelyNamed(settings);
        try {
            return cluster.connect("embedded owner", cluster::close);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }
}

package io.rstore.spi;

import io.rstore.RStore;
import io.rstore.RStoreSettings;

import java.net.URI;
import java.util.Set;

/**
 * How {@link RStore#embedded} and {@link RStore#connect} find a cluster without the client
 * module depending on the server: implementations are listed in
 * {@code META-INF/services/io.rstore.spi.ClusterProvider}.
 */
public interface ClusterProvider {

    /** URI schemes this provider connects to, e.g. {@code inproc}. */
    Set<String> schemes();

    /** A client of the cluster at {@code uri}. */
    RStore connect(URI uri, RStoreSettings settings);

    /** Starts an in-process cluster and returns a client that owns it, or null if this provider cannot. */
    default RStore embedded(RStoreSettings settings) {
        return null;
    }
}

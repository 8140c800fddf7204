package io.carafe.pregel;

import java.util.concurrent.Future;

/**
 * Starts the partition workers of a job. Workers need nothing but the cluster's URI, the
 * job's namespace and their index: the job's directory in RStore tells them the rest.
 */
public interface Workers extends AutoCloseable {

    /** Starts worker {@code index}; the future ends when the worker does (exceptionally if it failed). */
    Future<Void> start(String clusterUri, String jobNamespace, int index);

    /** Worker {@code index} as an error names it: "worker 1", or with what else finds it (its process id, say). */
    default String describe(int index) {
        return "worker " + index;
    }

    /** The resident memory of the workers' own processes, in bytes: 0 for workers that are threads of this one. */
    default long residentBytes() {
        return 0;
    }

    /** Stops whatever is still running. */
    @Override
    void close();
}

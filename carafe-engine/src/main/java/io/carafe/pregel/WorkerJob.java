package io.carafe.pregel;

import io.rstore.Mapping;
import io.rstore.Namespace;

import java.lang.foreign.Arena;

/**
 * What one partition worker holds of its job once it joined: the job's namespace and
 * directory, the directory's header, the partitioning, its partition, its program and
 * graph, the arena its local buffers come from and what the job's workers in this process
 * share. The message channels are built from it.
 */
record WorkerJob(Namespace job, Mapping directory, JobLayout.Header header, Partitioning partitioning, int index, VertexProgram program,
                 Declaration declared, WorkerGraph graph, Arena arena, GatheredArrays shared) {

    int partitions() {
        return partitioning.partitions();
    }

    /** The partition's first vertex. */
    int from() {
        return partitioning.start(index);
    }

    /** The partition's vertex count. */
    int size() {
        return partitioning.end(index) - from();
    }

    /** The push side's mailboxes for this worker, its outbox row and inbox column: combining with a combiner, else packed. */
    Mailboxes mailboxes() {
        return declared.combiner() != null ? combiningMailboxes() : new PackedMailboxes(job, directory, partitioning, index, declared.message(),
                MailboxLayout.PAGE_BYTES);
    }

    CombiningMailboxes combiningMailboxes() {
        return new CombiningMailboxes(job, directory, partitioning, index, header.vertices(), declared.message(), declared.combiner(), arena,
                MailboxLayout.PAGE_BYTES);
    }
}

package io.carafe.pregel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coordinator's part of a checkpoint records how the job's messages travelled, so a
 * job resumed with --messaging auto travels as it did (its workers' parts hold that
 * messaging's sections); a file written before it was recorded is still read, and such a
 * job is resumed as auto chose then.
 */
class CheckpointsTest {
    @TempDir
    Path dir;

    /** What wrote these checkpoints: one aggregator, no globals. */
    private static final VertexProgram ONE_AGGREGATOR = new VertexProgram() {
        @Override
        public void compute(Context ctx) {
        }

        @Override
        public List<Aggregator> aggregators() {
            return List.of(Aggregator.sumLong());
        }
    };

    private static final PregelJob.Superstep STEP = new PregelJob.Superstep(4, 0.25, 10, 3, 99, 1234, 2, new double[] {1.5});

    @Test
    void shouldRecordTheMessagingAndEachSuperstepsGatheringPartitions() {
        Checkpoints.writeWorker(dir, 5, 0, List.of(java.lang.foreign.MemorySegment.ofArray(new long[] {7})));
        Checkpoints.complete(dir, new Checkpoints.CoordinatorState(5, 3, 99, new long[] {1}, new long[0], List.of(STEP), Messaging.HYBRID), 1);
        Checkpoints.CoordinatorState read = Checkpoints.readCoordinator(dir, 5, ONE_AGGREGATOR);
        assertEquals(Messaging.HYBRID, read.messaging());
        assertEquals(2, read.history().getFirst().densePartitions());
        assertEquals(99, read.history().getFirst().messages());
        assertArrayEquals(new double[] {1.5}, read.history().getFirst().aggregates());
    }

    /** A coordinator file of the pre-release format ("REGCPNT1": no messaging, no dense partitions) is refused, saying what to do. */
    @Test
    void shouldRefuseACoordinatorFileFromBeforeMessagingWasRecorded() throws IOException {
        Path step = dir.resolve("step-5");
        Files.createDirectories(step);
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(step.resolve("coordinator")))) {
            out.writeLong(0x31544e5043_474552L);
            out.writeLong(5);
        }
        PregelException e = assertThrows(PregelException.class, () -> Checkpoints.readCoordinator(dir, 5, ONE_AGGREGATOR));
        assertTrue(e.getMessage().contains("written by a pre-release Carafe") && e.getMessage().contains("run the job again from the start"),
                e.getMessage());
    }

    /** Auto: gather for one value each vertex sends along out-edges (dense), hybrid where a combiner allows both, push otherwise. */
    @Test
    void shouldResolveAutoByWhatTheProgramSends() {
        assertEquals(Messaging.GATHER, Messaging.AUTO.resolve(
                Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.SUM).sendingAlongOutEdges().dense()));
        assertEquals(Messaging.HYBRID, Messaging.AUTO.resolve(
                Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges()));
        assertEquals(Messaging.HYBRID, Messaging.AUTO.resolve(
                Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongAllEdges()));
        assertEquals(Messaging.PUSH, Messaging.AUTO.resolve(
                Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges().plusWeight()));
    }
}

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
import static org.junit.jupiter.api.Assertions.assertNull;

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

    /** The format before this one ("REGCPNT1"): no messaging, no gathering partitions per superstep. */
    @Test
    void shouldReadACoordinatorFileFromBeforeMessagingWasRecorded() throws IOException {
        Path step = dir.resolve("step-5");
        Files.createDirectories(step);
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(step.resolve("coordinator")))) {
            out.writeLong(0x31544e5043_474552L);
            out.writeLong(5);
            out.writeLong(3);
            out.writeLong(99);
            out.writeInt(1);
            out.writeLong(1);
            out.writeInt(0);
            out.writeInt(1);
            out.writeLong(4);
            out.writeDouble(0.25);
            out.writeLong(10);
            out.writeLong(3);
            out.writeLong(99);
            out.writeLong(1234);
            out.writeInt(1);
            out.writeDouble(1.5);
        }
        Checkpoints.CoordinatorState read = Checkpoints.readCoordinator(dir, 5, ONE_AGGREGATOR);
        assertNull(read.messaging());
        assertEquals(0, read.history().getFirst().densePartitions());
        assertEquals(1234, read.history().getFirst().bytesMoved());
    }

    private static VertexProgram program(VertexProgram.Sends sends, Combiner combiner, RecordLayout message) {
        return new VertexProgram() {
            @Override
            public void compute(Context ctx) {
            }

            @Override
            public Sends sends() {
                return sends;
            }

            @Override
            public Combiner combiner() {
                return combiner;
            }

            @Override
            public RecordLayout messageLayout() {
                return message;
            }
        };
    }

    /** Before hybrid, auto gathered one double sent along out-edges once, and pushed everything else (BFS's longs, SSSP, WCC). */
    @Test
    void shouldResumeAnUnrecordedJobAsAutoChoseBeforeHybrid() {
        assertEquals(Messaging.GATHER, Messaging.autoBeforeHybrid(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE_DENSE, DoubleCombiner.SUM, RecordLayout.DOUBLE)));
        assertEquals(Messaging.GATHER, Messaging.autoBeforeHybrid(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE, DoubleCombiner.MIN, RecordLayout.DOUBLE)));
        assertEquals(Messaging.PUSH, Messaging.autoBeforeHybrid(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE, LongCombiner.MIN, RecordLayout.LONG)));
        assertEquals(Messaging.PUSH, Messaging.autoBeforeHybrid(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE_PLUS_WEIGHT, DoubleCombiner.MIN, RecordLayout.DOUBLE)));
        assertEquals(Messaging.PUSH, Messaging.autoBeforeHybrid(program(VertexProgram.Sends.ALL_NEIGHBOURS_ONCE, LongCombiner.MIN, RecordLayout.LONG)));
        assertEquals(Messaging.PUSH, Messaging.autoBeforeHybrid(program(VertexProgram.Sends.ANY, DoubleCombiner.SUM, RecordLayout.DOUBLE)));
        // and today's auto, for the same programs
        assertEquals(Messaging.GATHER, Messaging.AUTO.resolve(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE_DENSE, DoubleCombiner.SUM, RecordLayout.DOUBLE)));
        assertEquals(Messaging.HYBRID, Messaging.AUTO.resolve(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE, LongCombiner.MIN, RecordLayout.LONG)));
        assertEquals(Messaging.HYBRID, Messaging.AUTO.resolve(program(VertexProgram.Sends.ALL_NEIGHBOURS_ONCE, LongCombiner.MIN, RecordLayout.LONG)));
        assertEquals(Messaging.PUSH, Messaging.AUTO.resolve(program(VertexProgram.Sends.OUT_NEIGHBOURS_ONCE_PLUS_WEIGHT, LongCombiner.MIN, RecordLayout.LONG)));
    }
}

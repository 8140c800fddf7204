package io.carafe.pregel;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A program's one declaration: what each part means to the engine, in any order it is
 * written, and the combinations that cannot run refused when a job starts, each naming the
 * declaration to change.
 */
class DeclarationTest {

    @Test
    void shouldSendNothingUntilMessagesAreDeclared() {
        Declaration silent = Declaration.values(RecordLayout.LONG).check();
        assertSame(Declaration.Sending.NOTHING, silent.sending());
        assertNull(silent.message());
        assertEquals(0, silent.messageBytes());
        assertTrue(silent.acceptsAll());
        assertFalse(silent.readsInEdges() || silent.readsOtherValues() || silent.readsNeighbourhoods());
        Declaration any = silent.messages(RecordLayout.DOUBLE);
        assertSame(Declaration.Sending.ANY, any.sending());
        assertEquals(8, any.messageBytes());
        assertNull(any.combiner());
        assertSame(Declaration.Sending.NOTHING, silent.sending(), "each method returns a new declaration");
    }

    @Test
    void shouldMeanTheSameWhateverTheOrder() {
        Declaration a = Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.MIN).sendingAlongOutEdges().plusWeight();
        Declaration b = Declaration.values(RecordLayout.DOUBLE).sendingAlongOutEdges().plusWeight().messages(RecordLayout.DOUBLE, DoubleCombiner.MIN);
        for (Declaration d : new Declaration[] {a, b}) {
            d.check();
            assertSame(Declaration.Sending.ALONG_OUT_EDGES, d.sending());
            assertTrue(d.addsWeight());
            assertSame(DoubleCombiner.MIN, d.combiner());
        }
        assertEquals(a.toString(), b.toString());
    }

    @Test
    void shouldChooseGatherOrHybridOnlyForOneCombinedValueAlongEdges() {
        Declaration pageRank = Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.SUM).sendingAlongOutEdges().dense();
        assertTrue(pageRank.broadcastsOneValue());
        assertSame(Messaging.GATHER, Messaging.AUTO.resolve(pageRank));
        Declaration labels = Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongAllEdges();
        assertTrue(labels.readsInEdges(), "sending along all edges reads the in-edges");
        assertSame(Messaging.HYBRID, Messaging.AUTO.resolve(labels));
        Declaration uncombined = Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG).sendingAlongOutEdges();
        assertFalse(uncombined.broadcastsOneValue());
        assertSame(Messaging.PUSH, Messaging.AUTO.resolve(uncombined));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Messaging.GATHER.resolve(uncombined));
        assertTrue(e.getMessage().contains("Declaration.sendingAlongOutEdges"), e.getMessage());
    }

    @Test
    void shouldAskTheValueWhetherAVertexAccepts() {
        Declaration bfs = Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges()
                .sameValueEachSuperstep().accepting(level -> level.getLong(0) == Long.MAX_VALUE);
        RecordView level = RecordView.allocate(RecordLayout.LONG);
        level.setLong(0, Long.MAX_VALUE);
        assertTrue(bfs.accepts(level));
        level.setLong(0, 3);
        assertFalse(bfs.accepts(level));
        assertFalse(bfs.acceptsAll());
        assertTrue(bfs.check().sendsSameValue());
    }

    @Test
    void shouldRefuseWhatCannotRunNamingTheDeclarationToChange() {
        refused(Declaration.values(RecordLayout.LONG).sendingAlongOutEdges(), "declares no messages: add Declaration.messages");
        refused(Declaration.values(RecordLayout.LONG).messages(RecordLayout.builder().addLong("a").addLong("b").build(), LongCombiner.SUM),
                "a LongCombiner combines messages of one field of its type");
        refused(Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongOutEdges().plusWeight(),
                "Declaration.plusWeight adds each edge's weight to a message of one double sent along out-edges");
        refused(Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.MIN).plusWeight(),
                "sent any; give it one double, a DoubleCombiner and sendingAlongOutEdges");
        refused(Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.SUM).dense(),
                "Declaration.dense is for a program that sends along its edges once a superstep");
        refused(Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sameValueEachSuperstep(),
                "Declaration.sameValueEachSuperstep is for a program that sends along its edges once a superstep");
        refused(Declaration.values(RecordLayout.DOUBLE).messages(RecordLayout.DOUBLE, DoubleCombiner.MIN).sendingAlongOutEdges().plusWeight()
                .sameValueEachSuperstep(), "a receiver gets the one value sent, but plusWeight adds each edge's weight to it");
        refused(Declaration.values(RecordLayout.builder().addLong("parent").addInt("rank").build()).readingNewerValues(),
                "Declaration.readingNewerValues shows each value as one 8-byte store");
    }

    @Test
    void shouldReadOtherValuesWhenReadingNewerOnes() {
        Declaration previous = Declaration.values(RecordLayout.LONG).readingOtherValues().check();
        assertTrue(previous.readsOtherValues());
        assertFalse(previous.readsNewerValues(), "reads see the previous superstep's values unless said otherwise");
        for (RecordLayout value : new RecordLayout[] {RecordLayout.LONG, RecordLayout.DOUBLE}) {
            Declaration newer = Declaration.values(value).readingNewerValues().check();
            assertTrue(newer.readsOtherValues(), "the engine keeps the snapshots a newer read falls back on");
            assertTrue(newer.readsNewerValues());
            assertTrue(newer.toString().contains("reads newer values"), newer.toString());
        }
    }

    private static void refused(Declaration d, String said) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, d::check);
        assertTrue(e.getMessage().contains(said), e.getMessage());
    }
}

package io.carafe.pregel;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A forwarding program keeps every declaration of the program it wraps, including any
 * VertexProgram gains later, and the engine asks a wrapped program's acceptsMessages only
 * when the program (or the wrapper) declares it.
 */
class ForwardingVertexProgramTest {

    @Test
    void shouldOverrideEveryMethodOfVertexProgram() {
        List<String> missing = new ArrayList<>();
        for (Method m : VertexProgram.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                ForwardingVertexProgram.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertEquals(List.of(), missing, "VertexProgram methods that ForwardingVertexProgram does not pass on");
    }

    /** Every declaration differs from VertexProgram's default, so a call that fell back to the default would show. */
    private static final class Declaring implements VertexProgram {
        final List<Aggregator> aggregators = List.of(Aggregator.sumLong());
        boolean computed;
        boolean mastered;

        @Override
        public void compute(Context ctx) {
            computed = true;
        }

        @Override
        public RecordLayout valueLayout() {
            return RecordLayout.LONG;
        }

        @Override
        public RecordLayout messageLayout() {
            return RecordLayout.LONG;
        }

        @Override
        public Combiner combiner() {
            return LongCombiner.MIN;
        }

        @Override
        public Sends sends() {
            return Sends.ALL_NEIGHBOURS_ONCE;
        }

        final int[] starts = {7};

        @Override
        public int[] startVertices() {
            return starts;
        }

        @Override
        public void initialValue(RecordView value) {
            value.setLong(0, 41);
        }

        @Override
        public boolean acceptsMessages(RecordView value) {
            return false;
        }

        @Override
        public boolean sendsOneValueEachSuperstep() {
            return true;
        }

        @Override
        public boolean needsInEdges() {
            return true;
        }

        @Override
        public boolean readsOtherValues() {
            return true;
        }

        @Override
        public List<Aggregator> aggregators() {
            return aggregators;
        }

        @Override
        public int globals() {
            return 3;
        }

        @Override
        public String spec() {
            return "declaring";
        }

        @Override
        public boolean masterCompute(MasterContext master) {
            mastered = true;
            return true;
        }

        @Override
        public void formatValue(RecordView value, StringBuilder out) {
            out.append("formatted");
        }
    }

    private static final class Wrapper extends ForwardingVertexProgram {
        Wrapper(VertexProgram delegate) {
            super(delegate);
        }
    }

    @Test
    void shouldPassOnEveryDeclaration() {
        Declaring program = new Declaring();
        Wrapper w = new Wrapper(program);
        assertSame(program, w.delegate());
        w.compute(null);
        assertTrue(program.computed);
        assertSame(RecordLayout.LONG, w.valueLayout());
        assertSame(RecordLayout.LONG, w.messageLayout());
        assertSame(LongCombiner.MIN, w.combiner());
        assertSame(VertexProgram.Sends.ALL_NEIGHBOURS_ONCE, w.sends());
        assertFalse(w.acceptsMessages(null));
        assertSame(program.starts, w.startVertices());
        RecordView initial = RecordView.allocate(RecordLayout.LONG);
        w.initialValue(initial);
        assertEquals(41, initial.getLong(0));
        assertTrue(w.sendsOneValueEachSuperstep());
        assertTrue(w.needsInEdges());
        assertTrue(w.readsOtherValues());
        assertSame(program.aggregators, w.aggregators());
        assertEquals(3, w.globals());
        assertEquals("declaring", w.spec());
        assertTrue(w.masterCompute(null));
        assertTrue(program.mastered);
        StringBuilder out = new StringBuilder();
        w.formatValue(null, out);
        assertEquals("formatted", out.toString());
    }

    @Test
    void shouldAskAWrappedProgramsAcceptanceOnlyWhenItIsDeclared() {
        VertexProgram silent = ctx -> { };
        assertFalse(PartitionWorker.declaresAcceptance(silent));
        assertFalse(PartitionWorker.declaresAcceptance(new Wrapper(silent)), "the wrapper alone declares nothing");
        assertFalse(PartitionWorker.declaresAcceptance(new Wrapper(new Wrapper(silent))));
        assertTrue(PartitionWorker.declaresAcceptance(new Declaring()));
        assertTrue(PartitionWorker.declaresAcceptance(new Wrapper(new Declaring())));
        VertexProgram overriding = new ForwardingVertexProgram(silent) {
            @Override
            public boolean acceptsMessages(RecordView value) {
                return false;
            }
        };
        assertTrue(PartitionWorker.declaresAcceptance(overriding), "a wrapper that answers itself declares it");
    }
}

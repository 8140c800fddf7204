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
 * A forwarding program keeps everything the program it wraps says of itself, including any
 * method VertexProgram gains later, and its declaration whole: which vertices accept
 * messages among the rest.
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
        public Declaration declaration() {
            return declared;
        }

        final Declaration declared = Declaration.values(RecordLayout.LONG).messages(RecordLayout.LONG, LongCombiner.MIN).sendingAlongAllEdges()
                .sameValueEachSuperstep().accepting(value -> false).readingOtherValues();

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
        public long busiestSuperstepMessages(long vertices, long edges, int workers) {
            return vertices + edges + workers;
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
        assertSame(program.declared, w.declaration(), "the declaration: records, combiner, sending, acceptance, what it reads");
        assertSame(program.starts, w.startVertices());
        RecordView initial = RecordView.allocate(RecordLayout.LONG);
        w.initialValue(initial);
        assertEquals(41, initial.getLong(0));
        assertEquals(10 + 20 + 3, w.busiestSuperstepMessages(10, 20, 3));
        assertSame(program.aggregators, w.aggregators());
        assertEquals(3, w.globals());
        assertEquals("declaring", w.spec());
        assertTrue(w.masterCompute(null));
        assertTrue(program.mastered);
        StringBuilder out = new StringBuilder();
        w.formatValue(null, out);
        assertEquals("formatted", out.toString());
    }

    /** Which vertices accept messages is part of the declaration, so a wrapper keeps it, at any depth, and one may declare its own. */
    @Test
    void shouldKeepAWrappedProgramsAcceptance() {
        VertexProgram silent = ctx -> { };
        assertTrue(new Wrapper(silent).declaration().acceptsAll(), "the wrapper alone declares nothing");
        assertTrue(new Wrapper(new Wrapper(silent)).declaration().acceptsAll());
        RecordView value = RecordView.allocate(RecordLayout.LONG);
        assertFalse(new Declaring().declaration().acceptsAll());
        assertFalse(new Wrapper(new Wrapper(new Declaring())).declaration().accepts(value));
        VertexProgram overriding = new ForwardingVertexProgram(silent) {
            @Override
            public Declaration declaration() {
                return super.declaration().accepting(v -> false);
            }
        };
        assertFalse(overriding.declaration().acceptsAll(), "a wrapper that answers itself declares it");
        assertFalse(overriding.declaration().accepts(value));
    }
}

package io.carafe.algorithms.pregel;

import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgramsTest {

    @Test
    void shouldRebuildEveryProgramFromItsSpec() {
        for (VertexProgram p : List.of(new PageRank(0.85, 32, 0, false), new PageRank(0.5, 100, 1e-7, true),
                new ShortestPaths(42), new BreadthFirstSearch(0), new ConnectedComponents(),
                new AfforestComponents())) {
            VertexProgram again = Programs.fromSpec(p.spec());
            assertEquals(p.getClass(), again.getClass());
            assertEquals(p.spec(), again.spec());
        }
    }

    @Test
    void shouldExplainSpecsItCannotBuild() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Programs.fromSpec("")).getMessage().contains("only as threads"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Programs.fromSpec("no-such-program")).getMessage().contains("unknown vertex program"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Programs.fromSpec("pagerank damping=0.85")).getMessage().contains("lacks iterations"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Programs.fromSpec("sssp source=x")).getMessage().contains("bad number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Programs.fromSpec("wcc oops")).getMessage().contains("not key=value"));
    }
}

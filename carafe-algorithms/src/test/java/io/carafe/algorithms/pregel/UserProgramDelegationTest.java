package io.carafe.algorithms.pregel;

import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A user's program keeps every declaration it makes: the wrapper overrides each of VertexProgram's defaults. */
class UserProgramDelegationTest {

    @Test
    void shouldPassOnEveryDeclarationOfTheUsersProgram() {
        List<String> missing = new ArrayList<>();
        for (Method m : VertexProgram.class.getMethods()) {
            if (!m.isDefault()) {
                continue;
            }
            try {
                UserProgram.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            } catch (NoSuchMethodException e) {
                missing.add(m.getName());
            }
        }
        assertEquals(List.of(), missing, "VertexProgram defaults that UserProgram does not pass on to the user's program");
    }
}

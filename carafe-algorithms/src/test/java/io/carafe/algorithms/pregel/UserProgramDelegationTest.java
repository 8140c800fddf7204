package io.carafe.algorithms.pregel;

import io.carafe.pregel.ForwardingVertexProgram;
import io.carafe.pregel.VertexProgram;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's program keeps every declaration it makes: the wrapper forwards (the engine's
 * ForwardingVertexProgramTest checks that every VertexProgram method is passed on) and
 * answers only spec() itself, which names the jar for workers in other processes.
 */
class UserProgramDelegationTest {

    @Test
    void shouldPassOnEveryDeclarationOfTheUsersProgram() {
        assertTrue(ForwardingVertexProgram.class.isAssignableFrom(UserProgram.class));
        List<String> answered = new ArrayList<>();
        for (Method m : VertexProgram.class.getMethods()) {
            try {
                UserProgram.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
                answered.add(m.getName());
            } catch (NoSuchMethodException e) {
                // forwarded
            }
        }
        assertEquals(List.of("spec"), answered, "VertexProgram methods UserProgram answers itself instead of the user's program");
    }
}

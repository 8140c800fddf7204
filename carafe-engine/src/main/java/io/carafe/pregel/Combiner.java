package io.carafe.pregel;

/**
 * Combines messages to the same vertex before they are delivered, over the message record:
 * commutative and associative, with an identity, so order and grouping never change the
 * result. {@link DoubleCombiner} and {@link LongCombiner} are sum/min/max over a message of
 * one field; implement this for anything else (e.g. a min over one field and a max over
 * another).
 */
public interface Combiner {
    /** Sets {@code message} to the identity: combining it with any m gives m. */
    void identity(RecordView message);

    /** {@code into = into ⊕ message}. */
    void combine(RecordView into, RecordView message);
}

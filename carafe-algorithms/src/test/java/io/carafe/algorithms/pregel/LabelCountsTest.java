package io.carafe.algorithms.pregel;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LabelCountsTest {

    /** Neighbourhoods of every size, a hub among them, each against a TreeMap's count. */
    @Test
    void shouldFindTheMostFrequentSmallestLabelAfterHubsAndSmallNeighbourhoods() {
        Random random = new Random(28);
        LabelPropagation.LabelCounts counts = new LabelPropagation.LabelCounts();
        int[] sizes = {1, 3, 40_000, 2, 7, 1_000, 0, 5, 70_000, 1, 33, 64, 65};
        for (int round = 0; round < 3; round++) {
            for (int size : sizes) {
                counts.clear(size);
                TreeMap<Long, Integer> reference = new TreeMap<>();
                long range = Math.max(1, size / 3); // repeated labels, so counts differ
                for (int i = 0; i < size; i++) {
                    long label = random.nextLong(range) * 1_000_003L - 500;
                    counts.add(label);
                    reference.merge(label, 1, Integer::sum);
                }
                assertEquals(reference.size(), counts.distinct(), "distinct labels of " + size);
                if (size > 0) {
                    assertEquals(mostFrequentSmallest(reference), counts.mostFrequent(), "label of " + size);
                }
            }
        }
    }

    private static long mostFrequentSmallest(TreeMap<Long, Integer> counts) {
        long best = 0;
        int bestCount = 0;
        for (Map.Entry<Long, Integer> e : counts.entrySet()) { // ascending: the first of a count wins
            if (e.getValue() > bestCount) {
                best = e.getKey();
                bestCount = e.getValue();
            }
        }
        return best;
    }
}

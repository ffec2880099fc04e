package io.fairway.policies.fifo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The walks skip the failed-shape map for a shape counted alone: never for a hash added twice, for most added once. */
class ShapeCountsTest {
    @Test
    void aHashAddedTwiceIsAlwaysSharedAndMostHashesAddedOnceAreNot() {
        for (int n : new int[] {1, 7, 1_000, 200_000}) {
            SplittableRandom random = new SplittableRandom(n);
            ShapeCounts counts = new ShapeCounts(n);
            Map<Integer, Integer> added = new HashMap<>();
            int[] order = new int[n];
            for (int i = 0; i < n; i++) {
                // a quarter of the adds repeat an earlier hash, as groups of one shape from several LocalQueues would
                int h = i > 0 && random.nextInt(4) == 0 ? order[random.nextInt(i)] : random.nextInt();
                order[i] = h;
                counts.add(h);
                added.merge(h, 1, Integer::sum);
            }
            int once = 0;
            int alone = 0;
            for (Map.Entry<Integer, Integer> e : added.entrySet()) {
                if (e.getValue() > 1) {
                    assertThat(counts.shared(e.getKey())).as("hash %d added %d times", e.getKey(), e.getValue()).isTrue();
                } else {
                    once++;
                    alone += counts.shared(e.getKey()) ? 0 : 1;
                }
            }
            // eight buckets or more per group: a unique shape is alone in its bucket about nine times in ten
            assertThat(alone).as("unique hashes counted alone, of %d", once).isGreaterThanOrEqualTo(once * 85 / 100);
        }
    }
}

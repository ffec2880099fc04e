package io.fairway.core.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Keys of a deep, varied queue (many LocalQueues named alike, a handful of pod set shapes, many priorities) must hash
 * as far apart as random numbers: each shared hash is a deep comparison of pod sets in the pending index's map, and
 * a plain 31-based sum shares about one hash in ten at this shape.
 */
class KeyHashTest {
    /** The pod set shapes of the one-million-job benchmark: 1-8 GPUs on one node, or gangs of 2-8 full nodes. */
    static List<List<PodSet>> shapes() {
        List<List<PodSet>> shapes = new ArrayList<>();
        for (int g = 1; g <= 8; g *= 2) {
            shapes.add(List.of(PodSet.of("main", 1, Resources.builder().cpu(2L * g).memoryGiB(16L * g).gpus(g).build())));
        }
        for (int members = 2; members <= 8; members *= 2) {
            Resources node = Resources.builder().cpu(16).memoryGiB(128).gpus(8).build();
            shapes.add(List.of(PodSet.of("workers", members, node).withTopology(TopologyRequest.required(ClusterSpec.RACK_LABEL))));
            shapes.add(List.of(PodSet.of("workers", members, node).withTopology(TopologyRequest.preferred(ClusterSpec.RACK_LABEL))));
        }
        return shapes;
    }

    @Test
    void pendingGroupKeysOfAlikeQueuesShapesAndPrioritiesRarelyShareAHash() {
        Set<Integer> hashes = new HashSet<>();
        int keys = 0;
        for (int q = 0; q < 1000; q++) {
            for (List<PodSet> shape : shapes()) {
                for (int priority = 0; priority < 10; priority++) {
                    hashes.add(new PendingIndex.Key("default", "lq-" + q, shape, priority).hashCode());
                    keys++;
                }
            }
        }
        // 100,000 keys: random 32-bit hashes share about one; the 31-based sum shared 9,000
        assertThat(keys - hashes.size()).as("keys sharing a hash with another").isLessThan(20);
    }
}

package io.fairway.policies.fifo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PendingGroup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The walk looks every group's shape up in a map of failed shapes: shapes of alike ClusterQueue names, a few pod set
 * lists and many priorities must hash as far apart as random numbers (a shared hash is a deep comparison of pod sets).
 */
class ShapeHashTest {
    @Test
    void shapesOfAlikeQueuesPodSetsAndPrioritiesRarelyShareAHash() {
        PendingReason waiting = PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting");
        Set<Integer> hashes = new HashSet<>();
        int made = 0;
        for (PodSet podSet : podSets()) {
            for (int priority = 0; priority < 10; priority++) {
                JobStatus job = JobStatus.submitted(JobSpec.builder("j").queue("lq").priority(priority).podSet(podSet).build(), waiting, 0, 0);
                for (int q = 0; q < 1000; q++) {
                    // the interface's own pod set hash: the list's
                    hashes.add(OrderedPolicy.Shape.of("cq-" + q, new Group("cq-" + q, List.of(job)), job, true).hashCode());
                    made++;
                }
            }
        }
        // 100,000 shapes: random 32-bit hashes share about one; a 31-based sum of the parts shared 11,700
        assertThat(made - hashes.size()).as("shapes sharing a hash with another").isLessThan(20);
    }

    @Test
    void aCursorHashesTheShapeItMakesWhenLookedUp() {
        PendingReason waiting = PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "waiting");
        for (PodSet podSet : podSets()) {
            for (boolean withPriority : new boolean[] {true, false}) {
                JobStatus first = JobStatus.submitted(JobSpec.builder("a").queue("lq").priority(7).podSet(podSet).build(), waiting, 0, 0);
                JobStatus second = JobStatus.submitted(JobSpec.builder("b").queue("lq").priority(7).podSet(podSet).build(), waiting, 0, 1);
                OrderedPolicy.Cursor c = new OrderedPolicy.Cursor(new Group("cq-3", List.of(first, second)), true);
                c.shapeIn(withPriority);
                c.advance(); // the shape is the group's first job's, wherever the cursor stands
                OrderedPolicy.Shape made = OrderedPolicy.Shape.of("cq-3", new Group("cq-3", List.of(first)), first, withPriority);
                assertThat(c.shape()).isEqualTo(made);
                assertThat(c.shapeHash).isEqualTo(made.hashCode()).isEqualTo(c.shape().hashCode());
            }
        }
    }

    private record Group(String clusterQueue, List<JobStatus> jobs) implements PendingGroup {
    }

    /** 1-8 GPUs on one node, or gangs of 2-8 full nodes in one rack, required or preferred. */
    private static List<PodSet> podSets() {
        List<PodSet> out = new ArrayList<>();
        for (int g = 1; g <= 8; g *= 2) {
            out.add(PodSet.of("main", 1, Resources.builder().cpu(2L * g).memoryGiB(16L * g).gpus(g).build()));
        }
        for (int members = 2; members <= 8; members *= 2) {
            Resources node = Resources.builder().cpu(16).memoryGiB(128).gpus(8).build();
            out.add(PodSet.of("workers", members, node).withTopology(TopologyRequest.required(ClusterSpec.RACK_LABEL)));
            out.add(PodSet.of("workers", members, node).withTopology(TopologyRequest.preferred(ClusterSpec.RACK_LABEL)));
        }
        return out;
    }
}

package io.fairway.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.Node;
import io.fairway.api.model.NodeAffinity;
import io.fairway.api.model.NodeAffinity.Expression;
import io.fairway.api.model.NodeAffinity.Operator;
import io.fairway.api.model.NodeAffinity.Term;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import org.junit.jupiter.api.Test;

/** A pod set's required node affinity decides which nodes its members may use. */
class NodeAffinityPlacementTest {
    private static Node node(String name, String zone, String gen) {
        return Node.builder(name).label("zone", zone).label("gen", gen)
                .capacity(Resources.builder().cpu(64).memoryGiB(512).build()).gpus(GpuTopology.nvSwitch8("H100")).build();
    }

    private static JobSpec job(String id, NodeAffinity affinity) {
        return JobSpec.builder(id).queue(Fixtures.LQ)
                .podSet(PodSet.of("workers", 1, Resources.builder().cpu(1).gpus(8).build()).withAffinity(affinity)).build();
    }

    private static java.util.Set<String> nodesOf(Scheduler s, String id) {
        return s.status(id).orElseThrow().admission().placement().nodes();
    }

    @Test
    void aJobRunsOnlyOnNodesItsAffinityAllows() {
        // first node in name order is a zone-a, generation-7 node: without the affinity every job would take it first
        Scheduler s = Fixtures.cluster("best-effort-fifo", 64, null, node("n0", "a", "7"), node("n1", "b", "9"), node("n2", "c", "8")).build();
        s.submit(job("newer", NodeAffinity.of(Term.of(Expression.of("gen", Operator.Gt, "8")))));
        s.runRound();
        assertThat(nodesOf(s, "newer")).containsExactly("n1");

        s.submit(job("not-a", NodeAffinity.of(Term.of(Expression.of("zone", Operator.NotIn, "a")))));
        s.runRound();
        assertThat(nodesOf(s, "not-a")).containsExactly("n2"); // n0 is free but in zone a; n1 is full
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aJobWhoseAffinityNoNodeMatchesWaits() {
        Scheduler s = Fixtures.cluster("best-effort-fifo", 64, null, node("n0", "a", "7"), node("n1", "b", "9")).build();
        s.submit(job("old", NodeAffinity.of(Term.of(Expression.of("gen", Operator.Lt, "7")),
                Term.of(Expression.of("zone", Operator.In, "a"), Expression.of("gen", Operator.Gt, "7")))));
        s.runRound();
        assertThat(Fixtures.state(s, "old")).isEqualTo(JobState.PENDING);
        assertThat(s.checkInvariants()).isEmpty();
    }
}

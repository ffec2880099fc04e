package io.fairway.core.elastic;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Resize;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Elastic jobs under the FIFO policies: admitted at what fits, grown into idle capacity, shrunk before anyone is preempted. */
class ElasticJobsTest {
    private final AtomicLong now = new AtomicLong();

    private Scheduler scheduler(PreemptionPolicy preemption) {
        return Scheduler.builder().clock(now::get).policy("priority")
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").preemption(preemption).quota("default", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"))
                .node(Node.builder("n").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
    }

    private static JobSpec elastic(String id, int min, int max, int priority) {
        return JobSpec.builder(id).queue("q").priority(priority)
                .podSet(PodSet.of("workers", max, Resources.builder().gpus(1).build()).withMinCount(min)).build();
    }

    private static JobSpec rigid(String id, int gpus, int priority) {
        return JobSpec.builder(id).queue("q").priority(priority).members(1, Resources.builder().gpus(gpus).build()).build();
    }

    @Test
    void admittedAtWhatFitsThenGrowsIntoIdleCapacity() {
        Scheduler s = scheduler(PreemptionPolicy.NEVER);
        s.submit(rigid("rigid", 4, 0));
        s.submit(elastic("elastic", 2, 8, 0));
        RoundResult r = s.runRound();
        Admit e = r.decisions().stream().filter(d -> d instanceof Admit a && a.jobId().equals("elastic")).map(d -> (Admit) d).findFirst().orElseThrow();
        assertThat(e.counts()).containsEntry("workers", 4);
        s.reportStarted("rigid");
        s.reportStarted("elastic");
        s.reportFinished("rigid");
        r = s.runRound();
        assertThat(r.decisions()).singleElement().isInstanceOfSatisfying(Resize.class, rz -> {
            assertThat(rz.targetCount()).isEqualTo(8);
            assertThat(rz.placement().members()).hasSize(8);
        });
        assertThat(s.status("elastic").orElseThrow().admission().counts()).containsEntry("workers", 8);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void shrinksBeforePreempting() {
        Scheduler s = scheduler(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null));
        s.submit(elastic("elastic", 2, 8, 0));
        s.runRound();
        s.reportStarted("elastic");
        s.submit(rigid("urgent", 4, 10));
        RoundResult r = s.runRound();
        assertThat(r.decisions()).noneMatch(d -> d instanceof Preempt);
        assertThat(r.decisions()).filteredOn(d -> d instanceof Resize).singleElement()
                .satisfies(d -> assertThat(((Resize) d).targetCount()).isEqualTo(2));
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactly("urgent");
        // shrunk to its minimum, the elastic job regrows into what is left: 2 more GPUs
        assertThat(s.checkInvariants()).isEmpty();
        r = s.runRound();
        assertThat(s.status("elastic").orElseThrow().admission().counts()).containsEntry("workers", 4);
        assertThat(s.checkInvariants()).isEmpty();
    }

    /** A gang of a fixed head and elastic workers (a RayCluster, a UnifiedJob with a launcher). */
    private static JobSpec gang(String id, int min, int max, int priority) {
        return JobSpec.builder(id).queue("q").priority(priority)
                .podSet(PodSet.of("head", 1, Resources.builder().gpus(1).build()))
                .podSet(PodSet.of("workers", max, Resources.builder().gpus(1).build()).withMinCount(min)).build();
    }

    @Test
    void theElasticPodSetOfAGangIsAdmittedAtWhatFitsGrownAndShrunkWhileItsFixedPodSetKeepsItsSize() {
        Scheduler s = scheduler(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY, null, null));
        s.submit(rigid("rigid", 4, 0));
        s.submit(gang("gang", 1, 6, 0));
        RoundResult r = s.runRound();
        Admit g = r.decisions().stream().filter(d -> d instanceof Admit a && a.jobId().equals("gang")).map(d -> (Admit) d).findFirst().orElseThrow();
        assertThat(g.counts()).as("4 GPUs left: the head and 3 workers").containsEntry("head", 1).containsEntry("workers", 3);
        s.reportStarted("rigid");
        s.reportStarted("gang");
        s.reportFinished("rigid");
        r = s.runRound();
        assertThat(r.decisions()).singleElement().isInstanceOfSatisfying(Resize.class, rz -> {
            assertThat(rz.podSet()).isEqualTo("workers");
            assertThat(rz.targetCount()).isEqualTo(6);
        });
        s.submit(rigid("urgent", 4, 10));
        r = s.runRound();
        assertThat(r.decisions()).as("shrunk, not preempted").noneMatch(d -> d instanceof Preempt);
        assertThat(r.decisions()).filteredOn(d -> d instanceof Resize).singleElement()
                .satisfies(d -> assertThat(((Resize) d).targetCount()).isEqualTo(1));
        assertThat(r.decisions()).filteredOn(d -> d instanceof Admit).extracting(Decision::jobId).containsExactly("urgent");
        assertThat(s.status("gang").orElseThrow().admission().counts()).containsEntry("head", 1);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aJobOnACordonedNodeCanStillShrink() {
        io.fairway.api.spi.SchedulingPolicy shrinker = new io.fairway.api.spi.SchedulingPolicy() {
            @Override
            public String name() {
                return "shrinker";
            }

            @Override
            public void plan(io.fairway.api.spi.PolicyContext ctx) {
                ctx.pending().forEach(ctx::tryAdmit);
                ctx.holding().forEach(r -> ctx.resize(r, "workers", 2));
            }
        };
        Scheduler s = Scheduler.builder().clock(now::get).policy(shrinker)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"))
                .node(Node.builder("n").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
        s.submit(elastic("elastic", 2, 8, 0));
        s.runRound();
        s.reportStarted("elastic");
        s.clusters().cordon("n", true); // draining: the members already there stay until moved
        RoundResult r = s.runRound();
        assertThat(r.refused()).isEmpty();
        assertThat(r.decisions()).singleElement().isInstanceOfSatisfying(Resize.class, rz -> assertThat(rz.targetCount()).isEqualTo(2));
        assertThat(s.checkInvariants()).isEmpty();
    }
}

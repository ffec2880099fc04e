package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import io.fairway.testkit.FairwayArbitraries.NodeTemplate;
import io.fairway.testkit.FairwayArbitraries.Op;
import io.fairway.testkit.FairwayArbitraries.QueueTemplate;
import io.fairway.testkit.FairwayArbitraries.QuotaTemplate;
import io.fairway.testkit.FairwayArbitraries.RunRound;
import io.fairway.testkit.FairwayArbitraries.Start;
import io.fairway.testkit.FairwayArbitraries.Submit;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The suite catches deliberately broken policies: each broken policy fails the check that guards the invariant it
 * breaks, while a built-in policy passes the very same inputs.
 */
class BrokenPoliciesTest {

    private static final Supplier<SchedulingPolicy> CORRECT = () -> BuiltInPolicies.named("best-effort-fifo");

    private static JobTemplate fourGpuJob(int queue) {
        return new JobTemplate(queue, 0, List.of(PodSet.of("ps0", 1, Resources.builder().gpus(4).cpu(4).memoryGiB(16).build())));
    }

    /** One 8-GPU NVSwitch node, one queue with {@code gpuQuota} GPUs. */
    private static World oneNode(long gpuQuota) {
        List<QuotaTemplate> q = List.of(new QuotaTemplate(256_000, 0, 0), new QuotaTemplate(2048L << 30, 0, 0), new QuotaTemplate(gpuQuota, 0, 0));
        return new World(List.of(new NodeTemplate("nvswitch-8", 128, 1024, 0, false).build("n0")),
                List.of(Cohort.of("co0", null), Cohort.of("co1", null)),
                List.of(new QueueTemplate(-1, false, false, q, q, PreemptionPolicy.NEVER).build("cq0")),
                List.of(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq0", "cq0")));
    }

    /** Hands every pending job the placement of the first job it admitted: the same four GPUs, again and again. */
    static final class DoubleBooker implements SchedulingPolicy {
        private Placement taken;

        @Override
        public String name() {
            return "double-booker";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus j : ctx.pending()) {
                if (taken == null) {
                    Attempt a = ctx.tryAdmit(j);
                    if (a.admitted()) {
                        taken = a.admission().placement();
                    }
                } else {
                    ctx.tryAdmit(j, taken);
                }
            }
        }
    }

    /** Finds room for every pending job and admits it there, never looking at the queue's quota. */
    static final class QuotaIgnorer implements SchedulingPolicy {
        @Override
        public String name() {
            return "quota-ignorer";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus j : ctx.pending()) {
                Map<String, Integer> counts = new LinkedHashMap<>();
                Map<String, String> flavors = new HashMap<>();
                for (PodSet ps : j.spec().podSets()) {
                    counts.put(ps.name(), ps.count());
                    flavors.put(ps.name(), "reserved");
                }
                Optional<Placement> p = ctx.placement().find(j, counts, flavors);
                p.ifPresent(placement -> ctx.tryAdmit(j, placement));
            }
        }
    }

    /** Admits jobs, then preempts each one the round after it started and never readmits it: dropped jobs. */
    static final class Dropper implements SchedulingPolicy {
        private final Set<String> dropped = new HashSet<>();

        @Override
        public String name() {
            return "dropper";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus r : ctx.running()) {
                if (ctx.preempt(r, "making room")) {
                    dropped.add(r.id());
                }
            }
            for (JobStatus j : ctx.pending()) {
                if (dropped.contains(j.id())) {
                    ctx.leaveWaiting(j, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS, "later"));
                } else {
                    ctx.tryAdmit(j);
                }
            }
        }
    }

    private static final List<Op> THREE_JOBS = List.of(new Submit(fourGpuJob(0)), new Submit(fourGpuJob(0)), new Submit(fourGpuJob(0)),
            new RunRound(), new Start(0), new RunRound(), new RunRound());

    @Test
    void aPolicyThatDoubleBooksAGpuFailsTheSuite() {
        World w = oneNode(16);
        assertThatThrownBy(() -> ConformanceChecks.noPlanIsRefused(w, THREE_JOBS, DoubleBooker::new))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("tried to break an invariant")
                .hasMessageContaining("not free");
        assertThatCode(() -> ConformanceChecks.noPlanIsRefused(w, THREE_JOBS, CORRECT)).doesNotThrowAnyException();
        // the core kept the invariant itself: the capacity check alone cannot see the broken policy
        assertThatCode(() -> ConformanceChecks.capacityAndGpuExclusivity(w, THREE_JOBS, DoubleBooker::new)).doesNotThrowAnyException();
    }

    @Test
    void aPolicyThatIgnoresQuotaFailsTheSuite() {
        World w = oneNode(4); // room for two 4-GPU jobs on the node, quota for one
        assertThatThrownBy(() -> ConformanceChecks.noPlanIsRefused(w, THREE_JOBS, QuotaIgnorer::new))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("tried to break an invariant")
                .hasMessageContaining("QUOTA");
        assertThatCode(() -> ConformanceChecks.noPlanIsRefused(w, THREE_JOBS, CORRECT)).doesNotThrowAnyException();
        assertThatCode(() -> ConformanceChecks.quotaAtEveryLevel(w, THREE_JOBS, QuotaIgnorer::new)).doesNotThrowAnyException();
    }

    @Test
    void aPolicyThatDropsJobsFailsTheNoStarvationProperty() {
        World w = FairPolicyConformance.fairWorld(2);
        List<JobTemplate> jobs = List.of(fourGpuJob(0), fourGpuJob(1), fourGpuJob(0), fourGpuJob(1), fourGpuJob(0));
        assertThatThrownBy(() -> ConformanceChecks.noStarvation(w, jobs, Dropper::new, 2, 30))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("jobs starved")
                .hasMessageContaining("later");
        assertThatCode(() -> ConformanceChecks.noStarvation(w, jobs, () -> BuiltInPolicies.named("fair-share-over-time"), 2, 30))
                .doesNotThrowAnyException();
    }
}

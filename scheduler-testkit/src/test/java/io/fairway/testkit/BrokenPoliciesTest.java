package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import io.fairway.testkit.FaultSchedules.ActuatorFailure;
import io.fairway.testkit.FaultSchedules.ActuatorFailureKind;
import io.fairway.testkit.FaultSchedules.FaultSchedule;
import io.fairway.testkit.FaultSchedules.NodeFailure;
import io.fairway.testkit.FaultSchedules.ScheduledFault;
import io.fairway.testkit.FaultSchedules.SpotInterruption;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import org.junit.jupiter.api.Test;

/**
 * The suite catches deliberately broken policies: each broken policy fails the check that guards the invariant it
 * breaks, while a built-in policy passes the very same inputs.
 */
class BrokenPoliciesTest {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BrokenPoliciesTest.class);

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
            for (JobStatus r : ctx.holding()) {
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

    // ------------------------------------------------------------------ under the fault schedules and job sets

    /** A node lost before round 1 and back before round 2, an eviction and a spot notice before round 2. */
    private static final FaultSchedule SOME_FAULTS = new FaultSchedule(List.of(
            new ScheduledFault(1, new NodeFailure(0, 1)),
            new ScheduledFault(2, new ActuatorFailure(0, ActuatorFailureKind.EVICTED)),
            new ScheduledFault(2, new SpotInterruption(0, 1, true))));

    @Test
    void theFaultPropertyCatchesTheDoubleBookerAndTheQuotaIgnorer() {
        assertThatThrownBy(() -> ConformanceChecks.everyInvariantUnderFaults(oneNode(16), THREE_JOBS, SOME_FAULTS, DoubleBooker::new))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("tried to break an invariant")
                .hasMessageContaining("not free");
        assertThatThrownBy(() -> ConformanceChecks.everyInvariantUnderFaults(oneNode(4), THREE_JOBS, SOME_FAULTS, QuotaIgnorer::new))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("tried to break an invariant")
                .hasMessageContaining("QUOTA");
        assertThatCode(() -> ConformanceChecks.everyInvariantUnderFaults(oneNode(16), THREE_JOBS, SOME_FAULTS, CORRECT)).doesNotThrowAnyException();
        assertThatCode(() -> ConformanceChecks.everyInvariantUnderFaults(oneNode(4), THREE_JOBS, SOME_FAULTS, CORRECT)).doesNotThrowAnyException();
    }

    @Test
    void theDropperFailsTheNoStarvationPropertyUnderFaults() {
        World w = FairPolicyConformance.fairWorld(2);
        List<JobTemplate> jobs = List.of(fourGpuJob(0).inJobSet(0), fourGpuJob(1).inJobSet(0), fourGpuJob(0), fourGpuJob(1), fourGpuJob(0));
        assertThatThrownBy(() -> ConformanceChecks.noStarvationDespiteFaults(w, jobs, SOME_FAULTS, Dropper::new, 2, 60))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("jobs starved")
                .hasMessageContaining("3 faults");
        assertThatCode(() -> ConformanceChecks.noStarvationDespiteFaults(w, jobs, SOME_FAULTS, () -> BuiltInPolicies.named("fair-share-over-time"), 2, 60))
                .doesNotThrowAnyException();
    }

    /**
     * On inputs drawn from the same generators the conformance suite uses (job streams with job sets, multi-cluster
     * worlds, fault schedules; a fixed seed), each broken policy fails the fault property on many of them, while the
     * built-in policy passes every one. (A jqwik example: generators need jqwik's lifecycle.)
     */
    @Example
    void theGeneratedFaultScenariosCatchTheBrokenPolicies() {
        Random random = new Random(20261123);
        Arbitrary<World> worlds = FaultSchedules.multiClusterWorlds();
        Arbitrary<List<Op>> ops = FairwayArbitraries.operationLists();
        Arbitrary<FaultSchedule> faults = FaultSchedules.schedules();
        int scenarios = 40;
        int doubleBookerCaught = 0;
        int quotaIgnorerCaught = 0;
        for (int i = 0; i < scenarios; i++) {
            World w = worlds.generator(1000).next(random).value();
            List<Op> o = ops.generator(1000).next(random).value();
            FaultSchedule f = faults.generator(1000).next(random).value();
            assertThatCode(() -> ConformanceChecks.everyInvariantUnderFaults(w, o, f, CORRECT)).as("scenario %d, best-effort-fifo", i)
                    .doesNotThrowAnyException();
            doubleBookerCaught += caught(() -> ConformanceChecks.everyInvariantUnderFaults(w, o, f, DoubleBooker::new), "tried to break an invariant");
            quotaIgnorerCaught += caught(() -> ConformanceChecks.everyInvariantUnderFaults(w, o, f, QuotaIgnorer::new), "tried to break an invariant");
        }
        LOG.info("generated fault scenarios: double-booker caught in {} of {}, quota-ignorer in {} of {}", doubleBookerCaught, scenarios,
                quotaIgnorerCaught, scenarios);
        assertThat(doubleBookerCaught).as("scenarios of %d in which the double-booker was caught", scenarios).isGreaterThanOrEqualTo(scenarios / 4);
        assertThat(quotaIgnorerCaught).as("scenarios of %d in which the quota-ignorer was caught", scenarios).isGreaterThanOrEqualTo(scenarios / 4);
    }

    private static int caught(Runnable check, String expected) {
        try {
            check.run();
            return 0;
        } catch (AssertionError e) {
            assertThat(e.getMessage()).contains(expected);
            return 1;
        }
    }
}

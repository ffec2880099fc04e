package io.fairway.core.engine;

import static io.fairway.core.engine.Fixtures.cluster;
import static io.fairway.core.engine.Fixtures.gpuJob;
import static io.fairway.core.engine.Fixtures.h100;
import static io.fairway.core.engine.Fixtures.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.event.EventType;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whatever a policy does, the engine keeps its invariants: it refuses what breaks one and survives a policy that fails. */
class PolicySafetyTest {

    @Test
    void policiesAreFoundByNameAndAnUnknownNameListsTheKnownOnes() {
        assertThat(Policies.available()).containsKeys("strict-fifo", "best-effort-fifo", "priority");
        assertThat(Policies.create("strict-fifo", Map.of()).name()).isEqualTo("strict-fifo");
        assertThatThrownBy(() -> Policies.create("round-robin", Map.of()))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("policy");
                    assertThat(e.value()).isEqualTo("round-robin");
                })
                .hasMessageContaining("\"round-robin\"")
                .hasMessageContaining("best-effort-fifo").hasMessageContaining("priority").hasMessageContaining("strict-fifo");
        assertThatThrownBy(() -> Scheduler.builder().policy("round-robin").build()).hasMessageContaining("known policies");
    }

    @Test
    void fifoPoliciesRefuseParametersTheyDoNotTake() {
        assertThatThrownBy(() -> Policies.create("priority", Map.of("aging", "1h")))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("policy.priority.aging");
                    assertThat(e.value()).isEqualTo("1h");
                })
                .hasMessageContaining("aging");
    }

    /** Admits the first pending job normally, then tries to put the second on exactly the same GPUs. */
    private static final class DoubleBooker implements SchedulingPolicy {
        final List<Attempt> attempts = new ArrayList<>();

        @Override
        public String name() {
            return "double-booker";
        }

        @Override
        public void plan(PolicyContext ctx) {
            List<JobStatus> pending = ctx.pending();
            Placement taken = null;
            for (JobStatus r : ctx.holding()) {
                taken = r.admission().placement(); // GPUs held since an earlier round
            }
            int i = 0;
            if (taken == null) {
                Attempt first = ctx.tryAdmit(pending.get(0));
                attempts.add(first);
                taken = first.admission().placement();
                i = 1;
            }
            for (; i < pending.size(); i++) {
                attempts.add(ctx.tryAdmit(pending.get(i), taken));
            }
        }
    }

    @Test
    void aPolicyCannotGiveAGpuOfThisPlanTwice() {
        DoubleBooker policy = new DoubleBooker();
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).policy(policy).build();
        s.submit(gpuJob("a", 1, 4));
        s.submit(gpuJob("b", 1, 4));
        RoundResult r = s.runRound();

        assertThat(policy.attempts.get(0).admitted()).isTrue();
        Attempt second = policy.attempts.get(1);
        assertThat(second.admitted()).isFalse();
        assertThat(second.reason().code()).isEqualTo(PendingReason.Code.INSUFFICIENT_CAPACITY);
        assertThat(second.reason().message()).contains("not free").contains("n1");
        assertThat(r.decisions()).singleElement().extracting(d -> d.jobId()).isEqualTo("a");
        assertThat(state(s, "b")).isEqualTo(JobState.PENDING);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aPolicyCannotGiveAGpuHeldByARunningJob() {
        DoubleBooker policy = new DoubleBooker();
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).policy(policy).build();
        s.submit(gpuJob("a", 1, 4));
        s.runRound();
        s.reportStarted("a");
        s.submit(gpuJob("b", 1, 4));
        RoundResult r = s.runRound();

        assertThat(policy.attempts).last().satisfies(a -> {
            assertThat(a.admitted()).isFalse();
            assertThat(a.reason().message()).contains("not free");
        });
        assertThat(r.decisions()).isEmpty();
        assertThat(state(s, "b")).isEqualTo(JobState.PENDING);
        assertThat(s.checkInvariants()).isEmpty();
    }

    /** Admits the first waiting job; in later rounds, tries again to admit the job it admitted, under three statuses. */
    private static final class Readmitter implements SchedulingPolicy {
        JobStatus admittedAsPending;
        final List<Attempt> again = new ArrayList<>();

        @Override
        public String name() {
            return "readmitter";
        }

        @Override
        public void plan(PolicyContext ctx) {
            if (admittedAsPending == null) {
                admittedAsPending = ctx.pending().get(0);
                ctx.tryAdmit(admittedAsPending);
                return;
            }
            again.add(ctx.tryAdmit(ctx.holding().get(0))); // its status now
            again.add(ctx.tryAdmit(admittedAsPending)); // the waiting status kept from the round that admitted it
            // a status made up with its id under another place in submission order
            again.add(ctx.tryAdmit(JobStatus.submitted(admittedAsPending.spec(), admittedAsPending.pendingReason(), 0, 999_999)));
        }
    }

    @Test
    void aPolicyCannotAdmitAJobThatAlreadyHoldsResources() {
        Readmitter policy = new Readmitter();
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).policy(policy).build();
        s.submit(gpuJob("a", 1, 4));
        s.runRound();
        s.reportStarted("a");
        Admit held = s.status("a").orElseThrow().admission();
        s.submit(gpuJob("b", 1, 1)); // something waits: the policy is asked again
        RoundResult r = s.runRound();

        assertThat(policy.again).hasSize(3).allSatisfy(a -> {
            assertThat(a.admitted()).isFalse();
            assertThat(a.reason().message()).contains("already holds resources");
        });
        assertThat(r.decisions()).isEmpty();
        assertThat(state(s, "a")).isEqualTo(JobState.RUNNING);
        assertThat(s.status("a").orElseThrow().admission()).isEqualTo(held);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void aPlacementNamingAMissingGpuOrNodeIsRefused() {
        SchedulingPolicy p = new SchedulingPolicy() {
            @Override
            public String name() {
                return "liar";
            }

            @Override
            public void plan(PolicyContext ctx) {
                JobStatus j = ctx.pending().get(0);
                Attempt noGpu = ctx.tryAdmit(j, new Placement(List.of(new MemberPlacement("main", 0, "n1", List.of(0, 1, 2, 9))),
                        Locality.NVLINK_DOMAIN, 1.0));
                Attempt noNode = ctx.tryAdmit(j, new Placement(List.of(new MemberPlacement("main", 0, "n9", List.of(0, 1, 2, 3))),
                        Locality.NVLINK_DOMAIN, 1.0));
                Attempt half = ctx.tryAdmit(ctx.pending().get(1), new Placement(List.of(new MemberPlacement("main", 0, "n1", List.of(4))),
                        Locality.NVLINK_DOMAIN, 1.0));
                ctx.leaveWaiting(j, PendingReason.of(PendingReason.Code.POLICY_CHOSE_OTHERS,
                        noGpu.reason().message() + " | " + noNode.reason().message() + " | " + half.reason().message()));
            }
        };
        Scheduler s = cluster("best-effort-fifo", 64, null, h100("n1")).policy(p).build();
        s.submit(gpuJob("j", 1, 4));
        s.submit(gpuJob("gang", 2, 1));
        RoundResult r = s.runRound();
        assertThat(r.decisions()).isEmpty();
        String why = s.status("j").orElseThrow().pendingReason().message();
        assertThat(why).contains("no GPU 9").contains("node n9 does not exist").contains("size 1 outside minCount..count 2..2");
        assertThat(s.checkInvariants()).isEmpty();
    }

    /** Admits everything it can, then throws (until told to behave). */
    private static final class Crasher implements SchedulingPolicy {
        boolean crash = true;

        @Override
        public String name() {
            return "crasher";
        }

        @Override
        public void plan(PolicyContext ctx) {
            for (JobStatus j : ctx.pending()) {
                ctx.tryAdmit(j);
            }
            if (crash) {
                throw new IllegalStateException("bug in policy");
            }
        }
    }

    @Test
    void aPolicyThatThrowsHasItsWholePlanRefusedAndTheEngineStaysConsistent() {
        Crasher policy = new Crasher();
        Fixtures.Recorder rec = new Fixtures.Recorder();
        Scheduler s = cluster("best-effort-fifo", 64, rec, h100("n1")).policy(policy).build();
        s.submit(gpuJob("a", 1, 4));
        s.submit(gpuJob("b", 1, 4));
        List<JobStatus> before = s.jobs().all();

        RoundResult r = s.runRound();

        assertThat(r.decisions()).isEmpty();
        assertThat(rec.decisions).isEmpty();
        assertThat(r.refused()).anySatisfy(x -> assertThat(x).contains("crasher").contains("bug in policy"));
        assertThat(rec.events).anySatisfy(e -> {
            assertThat(e.type()).isEqualTo(EventType.PLAN_REFUSED);
            assertThat(e.reason()).contains("bug in policy");
        });
        assertThat(s.jobs().all()).extracting(JobStatus::state).containsOnly(JobState.PENDING);
        assertThat(s.jobs().all()).extracting(JobStatus::id).isEqualTo(before.stream().map(JobStatus::id).toList());
        assertThat(s.checkInvariants()).isEmpty();

        // once the policy behaves, the same jobs are admitted: nothing was half-applied
        policy.crash = false;
        r = s.runRound();
        assertThat(r.decisions()).hasSize(2).allMatch(d -> d instanceof Admit);
        assertThat(s.checkInvariants()).isEmpty();
    }
}

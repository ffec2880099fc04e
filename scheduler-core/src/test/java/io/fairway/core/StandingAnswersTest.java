package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A policy's walk that skips the groups whose answers stand ({@link PolicyContext#standingAnswer}): on a round after
 * an arrival the bundled walks attempt only what could have changed, a group whose dependency changed is decided
 * again, and the decisions and reasons are those of rounds from scratch.
 */
class StandingAnswersTest {
    private final AtomicLong now = new AtomicLong(1_000);

    /** Two nodes of 8 GPUs, one ClusterQueue of 16 GPUs that preempts lower priorities. */
    private Scheduler scheduler(SchedulingPolicy policy, boolean remember) {
        return Scheduler.builder().clock(now::get).policy(policy).rememberRounds(remember)
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").preemption(new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                                PreemptionPolicy.ReclaimWithinCohort.NEVER, PreemptionPolicy.BorrowWithinCohort.NEVER))
                        .quota("default", Resources.builder().cpu(256).memoryGiB(2048).gpus(16).build()).build())
                .localQueue(new LocalQueue("default", "lq", "cq"))
                .node(Node.builder("n1").gpus(GpuTopology.nvSwitch8("H100")).build())
                .node(Node.builder("n2").gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
    }

    private static JobSpec job(String id, int gpus, int priority) {
        return JobSpec.builder(id).queue("lq").priority(priority)
                .podSet(io.fairway.api.job.PodSet.of("main", 1, Resources.builder().gpus(gpus).build())).build();
    }

    /** Counts, through the public SPI, the attempts a policy makes and the groups it leaves on a standing answer. */
    private static final class Counting implements SchedulingPolicy {
        final SchedulingPolicy inner;
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger standing = new AtomicInteger();

        Counting(SchedulingPolicy inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public void plan(PolicyContext ctx) {
            PolicyContext counted = (PolicyContext) Proxy.newProxyInstance(PolicyContext.class.getClassLoader(), new Class<?>[] {PolicyContext.class},
                    (proxy, m, args) -> {
                        Object r;
                        try {
                            r = m.invoke(ctx, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                        if (m.getName().startsWith("tryAdmit")) {
                            attempts.incrementAndGet();
                        } else if (m.getName().equals("standingAnswer") && r != null) {
                            standing.incrementAndGet();
                        }
                        return r;
                    });
            inner.plan(counted);
        }

        void reset() {
            attempts.set(0);
            standing.set(0);
        }
    }

    /** Fills both nodes with priority-100 jobs and queues 20 lower-priority ones of varied sizes (one group each). */
    private static void fillAndQueue(Scheduler s) {
        s.submitAll(List.of(job("run-1", 8, 100), job("run-2", 8, 100)));
        s.runRound();
        s.reportStarted("run-1");
        s.reportStarted("run-2");
        List<JobSpec> waiting = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            waiting.add(job("wait-" + i, 1 << (i % 4), i)); // priorities 0..19: none may preempt the runners
        }
        s.submitAll(waiting);
    }

    private static void sameStates(Scheduler remembering, Scheduler scratch) {
        Map<String, JobStatus> theirs = new TreeMap<>();
        for (JobStatus j : scratch.jobs().all()) {
            theirs.put(j.id(), j);
        }
        for (JobStatus j : remembering.jobs().all()) {
            JobStatus o = theirs.get(j.id());
            assertThat(o).as("job %s", j.id()).isNotNull();
            assertThat(j.state()).as("state of %s", j.id()).isEqualTo(o.state());
            assertThat(j.admission()).as("admission of %s", j.id()).isEqualTo(o.admission());
            if (j.pendingReason() != null) {
                assertThat(j.pendingReason().sameAnswer(o.pendingReason())).as("reason of %s: %s / %s", j.id(), j.pendingReason(),
                        o.pendingReason()).isTrue();
            }
        }
    }

    @Test
    void afterAnArrivalOnlyTheNewJobIsAttemptedAndTheOthersKeepTheirReasons() {
        for (String policy : List.of("priority", "best-effort-fifo", "fair-sharing")) {
            Counting remembering = new Counting(Policies.create(policy, Map.of()));
            Counting scratch = new Counting(Policies.create(policy, Map.of()));
            Scheduler a = scheduler(remembering, true);
            Scheduler b = scheduler(scratch, false);
            fillAndQueue(a);
            fillAndQueue(b);
            a.runRound(); // every waiting job is attempted and given its reason
            b.runRound();
            JobStatus before = a.status("wait-7").orElseThrow();
            a.submitAll(List.of(job("late", 2, 50))); // an arrival: the round walks, but no attempt's dependency changed
            b.submitAll(List.of(job("late", 2, 50)));
            remembering.reset();
            scratch.reset();
            RoundResult ra = a.runRound();
            RoundResult rb = b.runRound();
            assertThat(ra.decisions()).as("%s: decisions", policy).isEqualTo(rb.decisions());
            assertThat(scratch.attempts.get()).as("%s: attempts from scratch", policy).isGreaterThanOrEqualTo(20);
            assertThat(remembering.standing.get()).as("%s: groups left on a standing answer", policy).isEqualTo(20);
            assertThat(remembering.attempts.get()).as("%s: attempts: the new job's only", policy).isBetween(1, 2);
            assertThat(a.status("wait-7").orElseThrow().pendingReason()).as("%s: the reason kept", policy).isSameAs(before.pendingReason());
            assertThat(a.status("late").orElseThrow().pendingReason()).as("%s: the new job is answered", policy).isNotNull();
            sameStates(a, b);
        }
    }

    @Test
    void aGroupWhoseCapacityChangedIsDecidedAgain() {
        for (String policy : List.of("priority", "best-effort-fifo")) {
            Counting remembering = new Counting(Policies.create(policy, Map.of()));
            Scheduler a = scheduler(remembering, true);
            Scheduler b = scheduler(Policies.create(policy, Map.of()), false);
            fillAndQueue(a);
            fillAndQueue(b);
            a.runRound();
            b.runRound();
            a.submitAll(List.of(job("late", 2, 50)));
            b.submitAll(List.of(job("late", 2, 50)));
            a.runRound();
            b.runRound();
            a.reportFinished("run-1"); // 8 GPUs free: every waiting job's capacity changed
            b.reportFinished("run-1");
            remembering.reset();
            RoundResult ra = a.runRound();
            RoundResult rb = b.runRound();
            assertThat(ra.decisions()).as("%s: decisions", policy).isEqualTo(rb.decisions());
            assertThat(ra.decisions()).as("%s: the freed node is used", policy).anyMatch(d -> d instanceof Admit);
            assertThat(remembering.standing.get()).as("%s: no answer stands once the capacity changed", policy).isZero();
            sameStates(a, b);
        }
    }
}

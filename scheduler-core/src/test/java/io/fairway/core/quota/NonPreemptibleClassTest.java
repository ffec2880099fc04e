package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.PreemptionPolicy.BorrowWithinCohort;
import io.fairway.api.model.PreemptionPolicy.CohortRules;
import io.fairway.api.model.PreemptionPolicy.ReclaimWithinCohort;
import io.fairway.api.model.PreemptionPolicy.WithinClusterQueue;
import io.fairway.api.model.PriorityClass;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundFixture;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * A priority class that is not preemptible (Armada's {@code preemptible: false}): its jobs are never preempted, by
 * priority, by reclaim within a cohort, nor for fair share. Each scenario runs twice: with a preemptible class the
 * same jobs are preempted, so the protection is what keeps them.
 */
class NonPreemptibleClassTest {
    private static final PriorityClass SYSTEM = new PriorityClass("system", 0, false);
    private static final PriorityClass BATCH = new PriorityClass("batch", 0, true);
    private final AtomicLong now = new AtomicLong(1_000);

    private Scheduler.Builder base(String policy, Map<String, String> params) {
        return Scheduler.builder().clock(now::get).policy(policy, params).flavor(ResourceFlavor.of("default"))
                .priorityClass(SYSTEM).priorityClass(BATCH)
                .node(Node.builder("n0").capacity(Resources.builder().cpu(32).memoryGiB(256).build()).build());
    }

    private static ClusterQueue cpuQueue(String name, String cohort, long nominal, PreemptionPolicy p) {
        ClusterQueue.Builder b = ClusterQueue.builder(name).preemption(p).quota("default", Resources.builder().cpu(nominal).build());
        return (cohort == null ? b : b.cohort(cohort)).build();
    }

    private JobSpec job(String id, String queue, int priority, String priorityClass) {
        return JobSpec.builder(id).namespace("ns").queue(queue).priority(priority).priorityClass(priorityClass).submitTimeMillis(now.get())
                .members(1, Resources.builder().cpu(1).build()).build();
    }

    private void submit(Scheduler s, String prefix, String queue, int n, int priority, String priorityClass) {
        for (int i = 0; i < n; i++) {
            s.submit(job(prefix + i, queue, priority, priorityClass));
        }
    }

    private RoundResult round(Scheduler s) {
        now.addAndGet(1_000);
        return RoundFixture.runAndStart(s);
    }

    private static List<String> preempted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Preempt).map(Decision::jobId).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"system", "batch"})
    void aHigherPriorityJobDoesNotPreemptANonPreemptibleOne(String lowClass) {
        PreemptionPolicy p = new PreemptionPolicy(WithinClusterQueue.LOWER_PRIORITY, ReclaimWithinCohort.NEVER, BorrowWithinCohort.NEVER);
        Scheduler s = base("best-effort-fifo", Map.of()).clusterQueue(cpuQueue("q", null, 32, p)).localQueue(new LocalQueue("ns", "q", "q")).build();
        submit(s, "low", "q", 32, 0, lowClass);
        round(s);
        s.submit(JobSpec.builder("high").namespace("ns").queue("q").priority(10).submitTimeMillis(now.get())
                .members(1, Resources.builder().cpu(1).build()).build());
        RoundResult r = round(s);
        if (lowClass.equals("system")) {
            assertThat(preempted(r)).isEmpty();
            assertThat(s.status("high").orElseThrow().admission()).isNull();
        } else {
            assertThat(preempted(r)).hasSize(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(CohortRules.class)
    void aLenderDoesNotReclaimFromANonPreemptibleBorrower(CohortRules rules) {
        for (String cls : List.of("system", "batch")) {
            PreemptionPolicy reclaim = new PreemptionPolicy(WithinClusterQueue.NEVER, ReclaimWithinCohort.ANY, BorrowWithinCohort.NEVER, null, rules);
            Scheduler s = base("best-effort-fifo", Map.of())
                    .clusterQueue(cpuQueue("lender", "c", 16, reclaim)).clusterQueue(cpuQueue("borrower", "c", 16, PreemptionPolicy.NEVER.withCohortRules(rules)))
                    .localQueue(new LocalQueue("ns", "lender", "lender")).localQueue(new LocalQueue("ns", "borrower", "borrower")).build();
            submit(s, "b", "borrower", 32, 0, cls); // borrows the lender's 16
            round(s);
            submit(s, "l", "lender", 4, 0, null);
            RoundResult r = round(s);
            if (cls.equals("system")) {
                assertThat(preempted(r)).as(cls).isEmpty();
            } else {
                assertThat(preempted(r)).as(cls).hasSize(4);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "fair-share-over-time"})
    void aQueueAboveItsFairShareKeepsItsNonPreemptibleJobs(String policy) {
        for (String cls : List.of("system", "batch")) {
            Scheduler.Builder b = base(policy, Map.of("preemptToFairShare", "true"));
            for (String q : List.of("a", "b")) {
                b.clusterQueue(ClusterQueue.builder(q).quota("default", Resources.builder().cpu(32).memoryGiB(256).build()).build())
                        .localQueue(new LocalQueue("ns", q, q));
            }
            Scheduler s = b.build();
            submit(s, "a", "a", 32, 0, cls);
            round(s);
            submit(s, "b", "b", 32, 0, null);
            RoundResult r = round(s);
            assertThat(preempted(r)).as(cls).hasSize(cls.equals("system") ? 0 : 16);
        }
    }

    @Test
    void aJobNamesItsClassAndTheOperatorsDefinitionDecides() {
        Scheduler s = base("best-effort-fifo", Map.of()).clusterQueue(cpuQueue("q", null, 32, PreemptionPolicy.NEVER))
                .localQueue(new LocalQueue("ns", "q", "q")).build();
        assertThatThrownBy(() -> s.submit(job("j", "q", 0, "platinum"))).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("platinum").extracting(e -> ((InvalidSpecException) e).field()).isEqualTo("job[j].priorityClass");
        assertThat(s.status("j")).isEmpty();
        // a job that claims a preemptible class is non-preemptible and of high priority gets the operator's definition
        JobSpec claims = new JobSpec("k", "ns", "q", null, null, 1_000, 0, List.of(PodSet.of("main", 1, Resources.builder().cpu(1).build())),
                0, null, null, new PriorityClass("batch", 1_000, false));
        s.submit(claims);
        JobSpec kept = s.status("k").orElseThrow().spec();
        assertThat(kept.preemptible()).isTrue();
        assertThat(kept.priority()).isEqualTo(0);
        s.submit(job("m", "q", 5, "system"));
        assertThat(s.status("m").orElseThrow().spec().preemptible()).isFalse();
        assertThat(s.status("m").orElseThrow().spec().priority()).as("the class's value").isEqualTo(0);
    }

    @Test
    void aRestoreKeepsAJobInItsClassOnlyWhenTheOperatorStillDefinesItSo() {
        Scheduler s = base("best-effort-fifo", Map.of()).clusterQueue(cpuQueue("q", null, 32, PreemptionPolicy.NEVER))
                .localQueue(new LocalQueue("ns", "q", "q")).build();
        s.submit(job("m", "q", 0, "system"));
        io.fairway.core.SchedulerState saved = s.exportState();
        Scheduler again = Scheduler.restore(saved, Scheduler.builder().clock(now::get).policy("best-effort-fifo").priorityClass(SYSTEM));
        assertThat(again.status("m").orElseThrow().spec().preemptible()).isFalse();
        // a state whose job claims a class the operator now defines otherwise (or not at all) is refused
        assertThatThrownBy(() -> Scheduler.restore(saved, Scheduler.builder().clock(now::get).policy("best-effort-fifo")
                .priorityClass(new PriorityClass("system", 0, true)))).isInstanceOf(InvalidSpecException.class)
                .extracting(e -> ((InvalidSpecException) e).field()).isEqualTo("state.jobs[m].priorityClass");
        assertThatThrownBy(() -> Scheduler.restore(saved, Scheduler.builder().clock(now::get).policy("best-effort-fifo")))
                .isInstanceOf(InvalidSpecException.class).hasMessageContaining("system");
    }
}

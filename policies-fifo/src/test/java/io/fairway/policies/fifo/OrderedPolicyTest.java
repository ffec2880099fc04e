package io.fairway.policies.fifo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.QueueingStrategy;
import io.fairway.api.model.Resources;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.CapacityView;
import io.fairway.api.spi.PlacementSearch;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.QuotaView;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The FIFO policies against a scripted context (no engine): the order they try jobs in, what they block, and the
 * reasons they leave.
 */
class OrderedPolicyTest {

    /** A context with a per-queue GPU budget: a job is admitted when its GPUs fit what is left of its queue's. */
    static final class ScriptedContext implements PolicyContext {
        final List<JobStatus> pending = new ArrayList<>();
        final Map<String, String> queueOf = new LinkedHashMap<>();
        final Map<String, Long> gpusLeft = new TreeMap<>();
        final Map<String, ClusterQueue> queues = new TreeMap<>();
        final List<String> tried = new ArrayList<>();
        final List<String> admitted = new ArrayList<>();
        final Map<String, PendingReason> waiting = new LinkedHashMap<>();
        private long seq;

        ScriptedContext queue(String name, long gpus, QueueingStrategy strategy) {
            queues.put(name, ClusterQueue.builder(name).queueingStrategy(strategy).build());
            gpusLeft.put(name, gpus);
            return this;
        }

        ScriptedContext job(String id, String queue, long gpus, int priority, long submitTime) {
            JobSpec spec = JobSpec.builder(id).queue("lq").priority(priority).submitTimeMillis(submitTime)
                    .members(1, Resources.builder().gpus(gpus).build()).build();
            pending.add(new JobStatus(spec, JobState.PENDING, PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "new"), null, 0, 0,
                    seq++, 0, 0, -1));
            queueOf.put(id, queue);
            return this;
        }

        @Override
        public long now() {
            return 0;
        }

        @Override
        public RandomGenerator random() {
            return new java.util.Random(1);
        }

        @Override
        public List<ClusterQueue> clusterQueues() {
            return new ArrayList<>(queues.values());
        }

        @Override
        public List<JobStatus> pending() {
            return List.copyOf(pending);
        }

        @Override
        public List<JobStatus> pending(String clusterQueue) {
            return pending.stream().filter(j -> clusterQueue.equals(queueOf.get(j.id()))).toList();
        }

        @Override
        public String clusterQueueOf(JobStatus job) {
            return queueOf.get(job.id());
        }

        @Override
        public List<JobStatus> holding() {
            return List.of();
        }

        @Override
        public Attempt tryAdmit(JobStatus job) {
            tried.add(job.id());
            String q = queueOf.get(job.id());
            long need = job.spec().totalGpus();
            if (need > gpusLeft.get(q)) {
                PendingReason r = new PendingReason(PendingReason.Code.QUOTA, "needs " + need + " GPUs, " + gpusLeft.get(q) + " left",
                        Map.of("needed", need));
                waiting.put(job.id(), r);
                return Attempt.failure(r);
            }
            gpusLeft.merge(q, -need, Long::sum);
            admitted.add(job.id());
            waiting.remove(job.id());
            return Attempt.success(new Admit(job.id(), q, Map.of("main", "default"), Map.of("main", 1), new Placement(List.of(), null, 1.0)));
        }

        @Override
        public Attempt tryAdmit(JobStatus job, Map<String, Integer> counts) {
            return tryAdmit(job);
        }

        @Override
        public Attempt tryAdmit(JobStatus job, Placement placement) {
            throw new AssertionError("FIFO policies use the engine's placement search");
        }

        @Override
        public Attempt tryAdmitPreempting(JobStatus job) {
            throw new AssertionError("no queue here allows preemption");
        }

        @Override
        public boolean preempt(JobStatus job, String reason) {
            throw new AssertionError("no queue here allows preemption");
        }

        @Override
        public Attempt resize(JobStatus job, String podSet, int targetCount) {
            throw new AssertionError("no elastic job here");
        }

        @Override
        public boolean setLease(JobStatus job, long expiresAtMillis) {
            return false;
        }

        @Override
        public void leaveWaiting(JobStatus job, PendingReason reason) {
            waiting.put(job.id(), reason);
        }

        @Override
        public QuotaView quota() {
            throw new UnsupportedOperationException("the FIFO policies never call this");
        }

        @Override
        public PlacementSearch placement() {
            throw new UnsupportedOperationException("the FIFO policies never call this");
        }

        @Override
        public CapacityView capacity() {
            throw new UnsupportedOperationException("the FIFO policies never call this");
        }
    }

    private static SchedulingPolicy policy(String name) {
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class)) {
            if (p.name().equals(name)) {
                return p.create(Map.of());
            }
        }
        throw new AssertionError("no provider " + name);
    }

    @Test
    void theThreePoliciesAreFoundByServiceLoaderWithDescriptions() {
        Map<String, String> found = new TreeMap<>();
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class)) {
            found.put(p.name(), p.description());
        }
        assertThat(found).containsKeys("strict-fifo", "best-effort-fifo", "priority");
        assertThat(found.values()).allMatch(d -> !d.isBlank());
        assertThat(policy("priority").name()).isEqualTo("priority");
    }

    @Test
    void policiesRefuseUnknownParametersNamingThem() {
        assertThatThrownBy(() -> new FifoPolicies.StrictFifo().create(Map.of("window", "5")))
                .isInstanceOfSatisfying(InvalidSpecException.class, e -> {
                    assertThat(e.field()).isEqualTo("policy.strict-fifo.window");
                    assertThat(e.value()).isEqualTo("5");
                })
                .hasMessageContaining("window");
    }

    @Test
    void bestEffortFifoTriesEveryJobInSubmissionOrderAndSkipsThoseThatDoNotFit() {
        ScriptedContext ctx = new ScriptedContext().queue("cq", 8, null)
                .job("c", "cq", 2, 0, 300)
                .job("a", "cq", 6, 0, 100)
                .job("b", "cq", 4, 0, 200);
        policy("best-effort-fifo").plan(ctx);
        assertThat(ctx.tried).containsExactly("a", "b", "c");
        assertThat(ctx.admitted).containsExactly("a", "c");
        assertThat(ctx.waiting.get("b").code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    @Test
    void equalSubmitTimesFallBackToTheOrderTheSchedulerAcceptedThem() {
        ScriptedContext ctx = new ScriptedContext().queue("cq", 100, null)
                .job("x", "cq", 1, 0, 50).job("y", "cq", 1, 0, 50).job("z", "cq", 1, 0, 50);
        policy("strict-fifo").plan(ctx);
        assertThat(ctx.tried).containsExactly("x", "y", "z");
    }

    @Test
    void strictFifoStopsAQueueAtItsFirstMisfitAndTellsTheOthersWhy() {
        ScriptedContext ctx = new ScriptedContext().queue("cq", 8, null).queue("other", 8, null)
                .job("a", "cq", 4, 0, 1)
                .job("big", "cq", 8, 0, 2)
                .job("small", "cq", 1, 0, 3)
                .job("o1", "other", 8, 0, 4);
        policy("strict-fifo").plan(ctx);
        assertThat(ctx.tried).containsExactly("a", "big", "o1");
        assertThat(ctx.admitted).containsExactly("a", "o1");
        PendingReason r = ctx.waiting.get("small");
        assertThat(r.code()).isEqualTo(PendingReason.Code.POLICY_CHOSE_OTHERS);
        assertThat(r.message()).contains("big").contains("StrictFIFO").contains("cq").contains("needs 8 GPUs, 4 left");
        assertThat(ctx.waiting.get("big").code()).isEqualTo(PendingReason.Code.QUOTA);
    }

    /** Best effort: the priority policy, and a best-effort queue even inside the strict policy. */
    @ParameterizedTest(name = "{0}, queue strategy {1}")
    @CsvSource({"strict-fifo, BEST_EFFORT_FIFO", "priority, "})
    void aBestEffortQueueIsNotBlockedByAJobThatDoesNotFit(String policy, QueueingStrategy strategy) {
        ScriptedContext ctx = new ScriptedContext().queue("cq", 4, strategy)
                .job("high-huge", "cq", 16, 9, 1)
                .job("low", "cq", 2, 0, 2);
        policy(policy).plan(ctx);
        assertThat(ctx.admitted).containsExactly("low");
    }

    @Test
    void priorityTriesHighestFirstThenBySubmission() {
        ScriptedContext ctx = new ScriptedContext().queue("cq", 100, null)
                .job("low-early", "cq", 1, 1, 10)
                .job("high-late", "cq", 1, 9, 30)
                .job("high-early", "cq", 1, 9, 20)
                .job("mid", "cq", 1, 5, 5);
        policy("priority").plan(ctx);
        assertThat(ctx.tried).containsExactly("high-early", "high-late", "mid", "low-early");
    }

    @Test
    void onceAShapeFailsLaterJobsOfTheSameShapeInTheQueueAreNotSearchedAgainButKeepTheReason() {
        ScriptedContext ctx = new ScriptedContext().queue("cq", 2, null)
                .job("a", "cq", 4, 0, 1)
                .job("b", "cq", 4, 0, 2)
                .job("c", "cq", 1, 0, 3)
                .job("d", "cq", 4, 0, 4);
        policy("best-effort-fifo").plan(ctx);
        assertThat(ctx.tried).containsExactly("a", "c");
        assertThat(ctx.admitted).containsExactly("c");
        assertThat(ctx.waiting.get("b")).isEqualTo(ctx.waiting.get("a"));
        assertThat(ctx.waiting.get("d")).isEqualTo(ctx.waiting.get("a"));
    }
}

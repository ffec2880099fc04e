package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundFixture;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fair share that is enforced, on scenarios written from the behaviour Armada's scheduler tests document (one node
 * of 32 CPUs and 256 GiB, queues of one-CPU jobs) and Kueue's fair-sharing preemption strategies: preemption down to
 * fair share, none when it would not make the shares fairer, none below a protected fraction of a queue's share;
 * priority before share within a round; the dominant share over memory too; usage charged up to each job's end.
 */
class FairShareEnforcementTest {
    private static final String FLAVOR = "default";
    private static final Map<String, String> PREEMPT = Map.of("preemptToFairShare", "true");

    /** A cluster of {@code nodes} nodes of 32 CPUs and 256 GiB; a ClusterQueue per name, each allowed the whole cluster. */
    private static final class Cluster {
        final AtomicLong now = new AtomicLong(1_000);
        final Scheduler s;
        final Map<String, Integer> submitted = new TreeMap<>();

        Cluster(String policy, Map<String, String> params, int nodes, Map<String, Double> priorityFactors) {
            Scheduler.Builder b = Scheduler.builder().clock(now::get).policy(policy, params).flavor(ResourceFlavor.of(FLAVOR))
                    .usageHalfLife(Duration.ofMinutes(10));
            Resources all = Resources.builder().cpu(32.0 * nodes).memoryGiB(256.0 * nodes).build();
            priorityFactors.forEach((q, f) -> {
                b.clusterQueue(ClusterQueue.builder(q).quota(FLAVOR, all).priorityFactor(f).fairSharingWeight(1 / f).build());
                b.localQueue(new LocalQueue("ns", q, q));
            });
            for (int n = 0; n < nodes; n++) {
                b.node(Node.builder("n" + n).capacity(Resources.builder().cpu(32).memoryGiB(256).build()).build());
            }
            s = b.build();
        }

        /** Submits {@code count} jobs of one member to queue {@code q}: ids q0, q1, ... in submission order. */
        void submit(String q, int count, int priority, double cpus, double memGiB) {
            List<JobSpec> batch = new ArrayList<>();
            int from = submitted.getOrDefault(q, 0);
            for (int i = from; i < from + count; i++) {
                batch.add(JobSpec.builder(q + i).namespace("ns").queue(q).priority(priority)
                        .members(1, Resources.builder().cpu(cpus).memoryGiB(memGiB).build()).submitTimeMillis(now.get() + i).build());
            }
            submitted.put(q, from + count);
            s.submitAll(batch);
        }

        /** Runs a round a second later; admitted jobs start. */
        RoundResult round() {
            now.addAndGet(1_000);
            return RoundFixture.runAndStart(s);
        }

        /** @return jobs holding resources, by queue */
        Map<String, Integer> holding() {
            Map<String, Integer> m = new TreeMap<>();
            submitted.keySet().forEach(q -> m.put(q, 0));
            s.jobs().all().stream().filter(j -> j.state().holdsResources()).forEach(j -> m.merge(j.admission().clusterQueue(), 1, Integer::sum));
            return m;
        }
    }

    private static List<String> admitted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Admit).map(d -> ((Admit) d).jobId()).sorted().toList();
    }

    private static List<String> preempted(RoundResult r) {
        return r.decisions().stream().filter(d -> d instanceof Preempt).map(d -> ((Preempt) d).jobId()).sorted().toList();
    }

    private static List<String> ids(String q, int from, int to) {
        List<String> l = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            l.add(q + i);
        }
        return l.stream().sorted().toList();
    }

    // ------------------------------------------------------------------------------------------------ preemption

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "fair-share-over-time"})
    void aQueueAboveItsShareIsPreemptedDownToItForALateQueue(String policy) {
        Cluster c = new Cluster(policy, PREEMPT, 1, Map.of("a", 1.0, "b", 1.0, "c", 1.0));
        c.submit("a", 32, 0, 1, 4);
        assertThat(admitted(c.round())).hasSize(32);
        c.submit("b", 32, 0, 1, 4);
        RoundResult r = c.round();
        assertThat(admitted(r)).as("B gets half the node in the round it arrives").isEqualTo(ids("b", 0, 15));
        assertThat(preempted(r)).as("A loses its most recently admitted half").isEqualTo(ids("a", 16, 31));
        c.submit("c", 10, 0, 1, 4);
        r = c.round();
        assertThat(admitted(r)).isEqualTo(ids("c", 0, 9));
        assertThat(preempted(r)).as("A and B give up five each").containsExactlyInAnyOrderElementsOf(
                concat(ids("a", 11, 15), ids("b", 11, 15)));
        assertThat(c.holding()).isEqualTo(Map.of("a", 11, "b", 11, "c", 10));
        c.submit("a", 1, 0, 1, 4);
        c.submit("b", 1, 0, 1, 4);
        c.submit("c", 1, 0, 1, 4);
        for (int i = 0; i < 3; i++) {
            r = c.round();
            assertThat(preempted(r)).as("steady: no preemption when it would not make the shares fairer").isEmpty();
            assertThat(admitted(r)).isEmpty();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "fair-share-over-time"})
    void weightsSetTheShareItIsPreemptedTo(String policy) {
        Cluster c = new Cluster(policy, PREEMPT, 1, Map.of("a", 2.0, "b", 1.0)); // priority factor 2: half B's share
        c.submit("a", 32, 0, 1, 4);
        c.round();
        c.submit("b", 32, 0, 1, 4);
        RoundResult r = c.round();
        assertThat(admitted(r)).isEqualTo(ids("b", 0, 20));
        assertThat(preempted(r)).isEqualTo(ids("a", 11, 31));
        c.submit("a", 1, 0, 1, 4);
        c.submit("b", 1, 0, 1, 4);
        assertThat(preempted(c.round())).isEmpty();
    }

    @Test
    void noPreemptionThatWouldNotMakeTheSharesFairer() {
        Cluster c = new Cluster("fair-share-over-time", PREEMPT, 1, Map.of("a", 1.0, "b", 1.0));
        c.submit("a", 32, 0, 1, 4);
        c.round();
        c.submit("b", 1, 0, 32, 256); // the whole node: B would end above where A ends
        RoundResult r = c.round();
        assertThat(preempted(r)).isEmpty();
        assertThat(admitted(r)).isEmpty();
        assertThat(c.s.status("b0").orElseThrow().pendingReason().message()).contains("fair share");
    }

    @Test
    void aQueueWithinItsProtectedFractionKeepsItsJobs() {
        Map<String, String> half = Map.of("preemptToFairShare", "true", "protectedFractionOfFairShare", "0.5");
        // at the limit: A (priority factor 0.5: a share of 2 / 4 of three active queues) holds 8 of 32 = half its share
        Cluster c = new Cluster("fair-share-over-time", half, 1, Map.of("a", 0.5, "b", 1.0, "c", 1.0));
        c.submit("a", 8, 0, 1, 4);
        c.round();
        c.submit("b", 24, 3, 1, 4); // higher priority: never preempted for a priority-0 job
        assertThat(admitted(c.round())).hasSize(24);
        c.submit("c", 1, 0, 1, 4);
        for (int i = 0; i < 2; i++) {
            RoundResult r = c.round();
            assertThat(preempted(r)).isEmpty();
            assertThat(admitted(r)).isEmpty();
        }
        // above the limit: A (factor 1: a third of the cluster) holds 9 of 32, more than half its share
        Cluster d = new Cluster("fair-share-over-time", half, 1, Map.of("a", 1.0, "b", 1.0, "c", 1.0));
        d.submit("a", 9, 0, 1, 4);
        d.round();
        d.submit("b", 23, 3, 1, 4);
        d.round();
        d.submit("c", 1, 0, 1, 4);
        RoundResult r = d.round();
        assertThat(admitted(r)).containsExactly("c0");
        assertThat(preempted(r)).containsExactly("a8");
        assertThat(preempted(d.round())).isEmpty();
    }

    @Test
    void anIdleQueueHasNoShareToProtect() {
        // C is configured but submits nothing: the active queues are A, B and D, a third of the cluster each. A holds 5
        // of 32 CPUs, more than half of a quarter (C counted) but not more than half of a third: it is protected.
        Map<String, String> half = Map.of("preemptToFairShare", "true", "protectedFractionOfFairShare", "0.5");
        Cluster c = new Cluster("fair-share-over-time", half, 1, Map.of("a", 1.0, "b", 1.0, "c", 1.0, "d", 1.0));
        c.submit("a", 5, 0, 1, 4);
        c.round();
        c.submit("b", 27, 3, 1, 4); // higher priority: never preempted for a priority-0 job
        c.round();
        c.submit("d", 1, 0, 1, 4);
        for (int i = 0; i < 2; i++) {
            RoundResult r = c.round();
            assertThat(preempted(r)).isEmpty();
            assertThat(admitted(r)).isEmpty();
        }
        assertThat(c.holding()).containsEntry("a", 5).containsEntry("b", 27).containsEntry("d", 0);
    }

    @Test
    void withoutTheOptionNothingIsPreemptedForFairShare() {
        Cluster c = new Cluster("fair-share-over-time", Map.of(), 1, Map.of("a", 1.0, "b", 1.0));
        c.submit("a", 32, 0, 1, 4);
        c.round();
        c.submit("b", 32, 0, 1, 4);
        assertThat(preempted(c.round())).isEmpty();
    }

    // ------------------------------------------------------------------------------------------ priority first

    /**
     * A (priority 0) and B (priority 1) each submit 32 one-CPU jobs. B's queue may take from A's (both borrow from a
     * cohort's 32 CPUs, B preempts lower-priority borrowers): with priority first, B's 32 start and A's wait, and
     * the next round preempts nothing; without it, 16 of A's start only to be preempted in the next round.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "fair-share-over-time"})
    void aJobIsNotStartedInTheRoundThatAHigherPriorityJobNeedsItsRoom(String policy) {
        AtomicLong now = new AtomicLong(1_000);
        Resources node = Resources.builder().cpu(32).memoryGiB(256).build();
        ResourceGroup nothing = new ResourceGroup(List.of(Resources.CPU, Resources.MEMORY), List.of(new FlavorQuotas(FLAVOR,
                List.of(ResourceQuota.of(Resources.CPU, 0), ResourceQuota.of(Resources.MEMORY, 0)))));
        ResourceGroup pool = new ResourceGroup(List.of(Resources.CPU, Resources.MEMORY), List.of(new FlavorQuotas(FLAVOR,
                List.of(ResourceQuota.of(Resources.CPU, node.get(Resources.CPU)), ResourceQuota.of(Resources.MEMORY, node.get(Resources.MEMORY))))));
        PreemptionPolicy takeFromLower = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY);
        Scheduler.Builder b = Scheduler.builder().clock(now::get).policy(policy, Map.of("priorityFirst", "true"))
                .flavor(ResourceFlavor.of(FLAVOR)).cohort(new Cohort("pool", null, List.of(pool), 1.0))
                .node(Node.builder("n0").capacity(node).build());
        for (String q : List.of("a", "b")) {
            b.clusterQueue(ClusterQueue.builder(q).cohort("pool").resourceGroup(nothing).preemption(takeFromLower).build());
            b.localQueue(new LocalQueue("ns", q, q));
        }
        Scheduler s = b.build();
        List<JobSpec> batch = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            batch.add(JobSpec.builder("a" + i).namespace("ns").queue("a").priority(0).members(1, Resources.builder().cpu(1).build()).build());
            batch.add(JobSpec.builder("b" + i).namespace("ns").queue("b").priority(1).members(1, Resources.builder().cpu(1).build()).build());
        }
        s.submitAll(batch);
        now.addAndGet(1_000);
        RoundResult first = s.runRound();
        assertThat(admitted(first)).as("B's 32 higher-priority jobs take the node").isEqualTo(ids("b", 0, 31));
        first.decisions().forEach(d -> {
            if (d instanceof Admit a) {
                s.reportStarted(a.jobId());
            }
        });
        now.addAndGet(1_000);
        RoundResult second = s.runRound();
        assertThat(preempted(second)).as("nothing started that must now be killed").isEmpty();
        assertThat(admitted(second)).isEmpty();
    }

    // ------------------------------------------------------------------------------------ dominant resource share

    /**
     * A's jobs need 1 CPU and 16 GiB (memory is their dominant resource), B's 1 CPU and 4 GiB. Dominant-resource
     * fairness ranked with each queue's next job (Armada, Kueue) gives A 10 jobs (160 GiB, 62.5% of memory) and B 22
     * (69% of the CPUs): every CPU is used. Ranked by the share now, A takes the tie at 62.5% each: 11 and 20. Comparing
     * CPUs alone gave them equal counts until memory was full (13 and 12), and 7 CPUs stayed idle.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"fair-sharing", "fair-share-over-time"})
    void theDominantShareCountsMemory(String policy) {
        Cluster c = new Cluster(policy, Map.of(), 1, Map.of("a", 1.0, "b", 1.0));
        c.submit("a", 32, 0, 1, 16);
        c.submit("b", 32, 0, 1, 4);
        c.round();
        assertThat(c.holding()).isEqualTo(Map.of("a", 11, "b", 20));
        assertThat(c.round().decisions()).isEmpty();

        Cluster armada = new Cluster(policy, Map.of("rankWithNextJob", "true"), 1, Map.of("a", 1.0, "b", 1.0));
        armada.submit("a", 32, 0, 1, 16);
        armada.submit("b", 32, 0, 1, 4);
        armada.round();
        assertThat(armada.holding()).isEqualTo(Map.of("a", 10, "b", 22));
        assertThat(armada.round().decisions()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------------ usage

    /**
     * A runs the whole node for ten half-lives and finishes just before the next round: its usage counts as ten
     * half-lives of the whole cluster (1 - 2^-10), not as nothing; B's newer jobs then go before A's.
     */
    @Test
    void usageIsChargedUpToEachJobsEnd() {
        Cluster c = new Cluster("fair-share-over-time", Map.of(), 1, Map.of("a", 1.0, "b", 1.0));
        c.submit("a", 32, 0, 1, 4);
        c.round();
        long halfLife = Duration.ofMinutes(10).toMillis();
        c.now.addAndGet(10 * halfLife);
        for (int i = 0; i < 32; i++) {
            c.s.reportFinished("a" + i);
        }
        c.round();
        double second = Math.pow(0.5, 1_000.0 / halfLife); // the round runs a second after the jobs ended
        assertThat(c.s.queues().decayedUsage().get("a")).isCloseTo((1 - Math.pow(2, -10)) * second, within(1e-9));
        assertThat(c.s.queues().decayedUsage().get("b")).isZero();
        // half the run: the queue's usage is charged up to the end of its jobs, not to the round after
        Cluster d = new Cluster("fair-share-over-time", Map.of(), 1, Map.of("a", 1.0, "b", 1.0));
        d.submit("a", 32, 0, 1, 4);
        d.round();
        d.now.addAndGet(halfLife);
        for (int i = 0; i < 32; i++) {
            d.s.reportFinished("a" + i);
        }
        d.now.addAndGet(halfLife);
        d.round();
        assertThat(d.s.queues().decayedUsage().get("a")).isCloseTo(0.5 * 0.5 * second, within(1e-9)); // (1 - 1/2), then halved
        d.submit("a", 32, 0, 1, 4);
        d.submit("b", 32, 0, 1, 4);
        d.round();
        assertThat(d.holding().get("b")).as("the queue that used nothing recently goes first").isGreaterThan(d.holding().get("a"));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> l = new ArrayList<>(a);
        l.addAll(b);
        return l;
    }
}

package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
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
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Preemption to fair share makes no cycles: over random queues (weights, cohorts or quota of their own, every
 * preemption setting), nodes, job shapes (CPU, memory, priority) and options, after each external change (arrivals,
 * a completion) the rounds that follow with nothing else changing stop preempting; and under LessThanOrEqualToFinalShare
 * alone (which leaves the preemptor's queue at most the victim's) they never preempt back: a job preempted for a queue
 * is not readmitted only to be preempted for that queue again, and a job that took another queue's room is not
 * preempted for that queue. (LessThanInitialShare lets the preemptor's queue end above the victim's, so room may move
 * back and forth between two queues, each time with a lower larger share, until it stops.) (A victim may be readmitted into room its preemption freed beyond what
 * the preemptor needed, and lose it to a third queue that fell below it in the meantime: each preemption lowers the
 * largest share it touches, so the shares, largest first, fall in lexicographic order and the preemptions end.)
 */
class FairSharePreemptionProperties {

    /**
     * A case the property once found: under fair share over time with both strategies, a job of a queue whose older
     * job of equal priority was preempted earlier in the same round preempted for fair share; the older job, waiting,
     * took its room back within the ClusterQueue (LowerOrNewerEqualPriority) in the next round, and the two rounds
     * repeated for ever. Such a job now does not preempt for fair share.
     */
    @Example
    void aJobWhoseRoomAnEarlierVictimOfItsQueueWouldTakeBackDoesNotPreemptForFairShare() {
        preemptionToFairShareMakesNoCycles(26249L);
    }

    @Property(tries = 150)
    void preemptionToFairShareMakesNoCycles(@ForAll long seed) {
        Random rnd = new Random(seed);
        AtomicLong now = new AtomicLong(1_000);
        Map<String, String> params = new HashMap<>();
        params.put("preemptToFairShare", "true");
        params.put("protectedFractionOfFairShare", List.of("0", "0.5", "1", "2").get(rnd.nextInt(4)));
        params.put("fairSharePreemptionStrategies", List.of("LessThanOrEqualToFinalShare", "LessThanInitialShare",
                "LessThanOrEqualToFinalShare,LessThanInitialShare", "LessThanInitialShare,LessThanOrEqualToFinalShare").get(rnd.nextInt(4)));
        params.put("priorityFirst", Boolean.toString(rnd.nextBoolean()));
        params.put("rankWithNextJob", Boolean.toString(rnd.nextBoolean()));
        boolean finalShareOnly = params.get("fairSharePreemptionStrategies").equals("LessThanOrEqualToFinalShare");
        String policy = rnd.nextBoolean() ? "fair-sharing" : "fair-share-over-time";
        int nodes = 1 + rnd.nextInt(3);
        Resources node = Resources.builder().cpu(32).memoryGiB(256).build();
        Scheduler.Builder b = Scheduler.builder().clock(now::get).seed(seed).policy(policy, params).flavor(ResourceFlavor.of("f"))
                .usageHalfLife(Duration.ofSeconds(30));
        boolean cohort = rnd.nextBoolean();
        if (cohort) {
            b.cohort(new Cohort("pool", null, List.of(group(nodes * 16, nodes * 128)), 1.0));
        }
        int queues = 2 + rnd.nextInt(3);
        for (int i = 0; i < queues; i++) {
            PreemptionPolicy p = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.values()[rnd.nextInt(3)],
                    PreemptionPolicy.ReclaimWithinCohort.values()[rnd.nextInt(3)], PreemptionPolicy.BorrowWithinCohort.values()[rnd.nextInt(2)]);
            double weight = 1 + rnd.nextInt(3);
            ClusterQueue.Builder q = ClusterQueue.builder("q" + i).fairSharingWeight(weight).priorityFactor(1 / weight);
            if (cohort) {
                q.cohort("pool").resourceGroup(group(rnd.nextInt(nodes * 16 / queues + 1), rnd.nextInt(nodes * 128 / queues + 1))).preemption(p);
            } else {
                q.resourceGroup(group(nodes * 32, nodes * 256)).preemption(new PreemptionPolicy(p.withinClusterQueue(), null, null));
            }
            b.clusterQueue(q.build());
            b.localQueue(new LocalQueue("ns", "q" + i, "q" + i));
        }
        for (int n = 0; n < nodes; n++) {
            b.node(Node.builder("n" + n).capacity(node).build());
        }
        Scheduler s = b.build();
        Map<String, String> queueOf = new HashMap<>();
        List<String> running = new ArrayList<>();
        int id = 0;
        for (int step = 0; step < 8; step++) {
            now.addAndGet(1_000);
            for (int k = rnd.nextInt(12); k > 0; k--) {
                String q = "q" + rnd.nextInt(queues);
                String jid = "j" + id++;
                queueOf.put(jid, q);
                s.submit(JobSpec.builder(jid).namespace("ns").queue(q).priority(rnd.nextInt(2))
                        .members(1, Resources.builder().cpu(1 + rnd.nextInt(8)).memoryGiB(4 * (1 + rnd.nextInt(12))).build()).build());
            }
            if (!running.isEmpty() && rnd.nextBoolean()) {
                s.reportFinished(running.remove(rnd.nextInt(running.size())));
            }
            Map<String, String> preemptedBy = new HashMap<>(); // victim job -> preemptor's queue, since the change
            Map<String, Set<String>> tookFromQueues = new HashMap<>(); // preemptor job -> its victims' queues
            List<String> log = new ArrayList<>();
            log.add(policy + " " + params + (cohort ? " cohort" : "") + " nodes " + nodes);
            int fairPreemptionsInLastRound = 0;
            for (int quiet = 0; quiet < 8; quiet++) {
                now.addAndGet(1_000); // time passes: usage over time moves, the shares do not
                RoundResult r = s.runRound();
                assertThat(r.refused()).as("the core refused part of the policy's plan").isEmpty();
                fairPreemptionsInLastRound = 0;
                for (Decision d : r.decisions()) {
                    if (d instanceof Preempt p && p.reason().startsWith("preempted for fair share")) {
                        fairPreemptionsInLastRound++;
                        String victimQueue = queueOf.get(p.jobId());
                        String preemptorQueue = p.reason().replaceAll(".* of ClusterQueue (\\S+), below.*", "$1");
                        String preemptor = p.reason().replaceAll(".*, and job (\\S+) of ClusterQueue.*", "$1");
                        log.add("round " + quiet + ": " + p.jobId() + " of " + victimQueue + " for " + preemptor + " of " + preemptorQueue);
                        if (finalShareOnly) { // LessThanInitialShare lets the preemptor's queue end above the victim's
                            assertThat(preemptedBy.get(p.jobId())).as("%s was preempted for %s, readmitted and preempted for it again: %s",
                                    p.jobId(), preemptorQueue, log).isNotEqualTo(preemptorQueue);
                            assertThat(tookFromQueues.getOrDefault(p.jobId(), Set.of())).as("%s had preempted a job of %s, which now preempts it: %s",
                                    p.jobId(), preemptorQueue, log).doesNotContain(preemptorQueue);
                        }
                        preemptedBy.put(p.jobId(), preemptorQueue);
                        tookFromQueues.computeIfAbsent(preemptor, k -> new HashSet<>()).add(victimQueue);
                    }
                    if (d instanceof Preempt p) {
                        running.remove(p.jobId());
                    }
                }
                for (Decision d : r.decisions()) {
                    if (d instanceof Admit a) {
                        s.reportStarted(a.jobId());
                        running.add(a.jobId());
                        log.add("round " + quiet + ": admit " + a.jobId() + " in " + a.clusterQueue() + " " + s.status(a.jobId()).orElseThrow().spec()
                                .podSets().get(0).resources() + " p" + s.status(a.jobId()).orElseThrow().spec().priority() + " on "
                                + a.placement().nodes());
                    }
                }
                assertThat(s.checkInvariants()).isEmpty();
            }
            assertThat(fairPreemptionsInLastRound).as("preemptions for fair share keep going with nothing changing: %s", log).isZero();
        }
    }

    private static ResourceGroup group(long cpus, long memGiB) {
        return new ResourceGroup(List.of(Resources.CPU, Resources.MEMORY), List.of(new FlavorQuotas("f", List.of(
                ResourceQuota.of(Resources.CPU, cpus * 1000), ResourceQuota.of(Resources.MEMORY, memGiB << 30)))));
    }
}

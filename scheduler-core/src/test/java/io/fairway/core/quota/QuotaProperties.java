package io.fairway.core.quota;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.FlavorQuotas;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.ResourceGroup;
import io.fairway.api.model.ResourceQuota;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Properties over random cohort trees, quotas, preemption settings and job streams: usage never exceeds what
 * each node of the tree may use; no preemption cycle — while nothing else changes, no two jobs preempt each
 * other back and forth, and preemptions die out; and every admitted job runs on nodes of the flavor it was
 * charged to.
 */
class QuotaProperties {
    private static final String[] POLICIES = {"best-effort-fifo", "strict-fifo", "priority", "fair-sharing", "fair-share-over-time"};

    @Property
    void quotaHoldsNoPreemptionCyclesFlavorsMatchNodes(@ForAll long seed, @ForAll @IntRange(min = 0, max = 4) int policyIndex) {
        Random rnd = new Random(seed);
        AtomicLong now = new AtomicLong();
        ResourceFlavor a = new ResourceFlavor("fa", Map.of("pool", "a"), List.of(), List.of());
        ResourceFlavor b = new ResourceFlavor("fb", Map.of("pool", "b"), List.of(), List.of());
        ResourceFlavor c = ResourceFlavor.of("fc"); // cpu of queues that quote it in a resource group of its own
        Scheduler.Builder sb = Scheduler.builder().clock(now::get).seed(seed).policy(POLICIES[policyIndex]).flavor(a).flavor(b).flavor(c);
        // a random cohort tree: roots r0..r1, inner cohorts below them, some with quota of their own
        int cohorts = 1 + rnd.nextInt(4);
        List<String> cohortNames = new ArrayList<>();
        for (int i = 0; i < cohorts; i++) {
            String parent = i < 2 || cohortNames.isEmpty() ? null : cohortNames.get(rnd.nextInt(cohortNames.size()));
            List<ResourceGroup> own = rnd.nextInt(3) == 0 ? List.of(group(rnd, 0, 8, false)) : List.of();
            sb.cohort(new Cohort("c" + i, parent, own, 1.0));
            cohortNames.add("c" + i);
        }
        int queues = 2 + rnd.nextInt(4);
        Map<String, PreemptionPolicy.CohortRules> rulesOfQueue = new HashMap<>();
        Map<String, String> queueOfJob = new HashMap<>();
        for (int i = 0; i < queues; i++) {
            String cohort = rnd.nextInt(5) == 0 ? null : cohortNames.get(rnd.nextInt(cohortNames.size()));
            PreemptionPolicy.BorrowWithinCohort borrow = PreemptionPolicy.BorrowWithinCohort.values()[rnd.nextInt(2)];
            // Kueue's cohort rules (the default) mostly, Fairway's stricter ones on some queues; a priority threshold
            // on some queues that may preempt while borrowing
            Integer threshold = borrow == PreemptionPolicy.BorrowWithinCohort.LOWER_PRIORITY && rnd.nextInt(3) == 0 ? rnd.nextInt(6) : null;
            PreemptionPolicy p = new PreemptionPolicy(
                    PreemptionPolicy.WithinClusterQueue.values()[rnd.nextInt(3)],
                    PreemptionPolicy.ReclaimWithinCohort.values()[rnd.nextInt(3)],
                    borrow, threshold, rnd.nextInt(4) == 0 ? PreemptionPolicy.CohortRules.FAIRWAY_STRICT : PreemptionPolicy.CohortRules.KUEUE);
            rulesOfQueue.put("q" + i, p.cohortRules());
            ClusterQueue.Builder qb = ClusterQueue.builder("q" + i).cohort(cohort).preemption(p).fairSharingWeight(1 + rnd.nextInt(3));
            if (rnd.nextInt(3) == 0) {
                // Kueue's common layout: GPUs in one resource group (fa, fb), cpu in another (fc): a flavor per group
                qb.resourceGroup(gpuGroup(rnd, 0, 12, cohort != null))
                        .resourceGroup(new ResourceGroup(List.of(Resources.CPU), List.of(new FlavorQuotas("fc", List.of(ResourceQuota.of(Resources.CPU, 64_000))))));
            } else {
                qb.resourceGroup(group(rnd, 0, 12, cohort != null));
            }
            sb.clusterQueue(qb.build());
            sb.localQueue(new LocalQueue("ns", "q" + i, "q" + i));
        }
        for (int n = 0; n < 2 + rnd.nextInt(4); n++) {
            sb.node(Node.builder("n" + n).label("pool", n % 2 == 0 ? "a" : "b").capacity(Resources.builder().cpu(32).build())
                    .gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = sb.build();
        Map<String, ResourceFlavor> flavors = Map.of("fa", a, "fb", b, "fc", c);
        Map<String, Node> nodes = new HashMap<>();
        s.clusters().nodes().forEach(n -> nodes.put(n.name(), n));
        List<String> running = new ArrayList<>();
        int id = 0;
        for (int step = 0; step < 12; step++) {
            now.addAndGet(1000);
            // an external change: arrivals and perhaps a completion
            for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
                String q = "q" + rnd.nextInt(queues);
                queueOfJob.put("j" + id, q);
                s.submit(JobSpec.builder("j" + id++).namespace("ns").queue(q).priority(rnd.nextInt(3))
                        .members(1 + rnd.nextInt(2), Resources.builder().gpus(1 + rnd.nextInt(4)).cpu(1).build()).build());
            }
            if (!running.isEmpty() && rnd.nextBoolean()) {
                s.reportFinished(running.remove(rnd.nextInt(running.size())));
            }
            // then quiet rounds: a preemption cycle would show as a pair preempting each other here
            Map<String, String> preemptedBy = new HashMap<>(); // "preemptor>victim" since the last external change
            int preemptionsInLastQuietRound = 0;
            List<String> log = new ArrayList<>();
            for (int quiet = 0; quiet < 8; quiet++) {
                preemptionsInLastQuietRound = 0;
                io.fairway.core.RoundResult rr = s.runRound();
                assertThat(rr.refused()).as("the core refused part of a built-in policy's plan").isEmpty();
                for (Decision d : rr.decisions()) {
                    if (d instanceof Admit adm) {
                        log.add("round " + quiet + ": admit " + adm.jobId() + " in " + adm.clusterQueue() + " " + adm.flavors());
                        s.reportStarted(adm.jobId());
                        running.add(adm.jobId());
                        for (MemberPlacement m : adm.placement().members()) {
                            for (String name : Admit.flavorsOf(adm.flavors(), m.podSet())) {
                                ResourceFlavor f = flavors.get(name);
                                assertThat(f.matches(nodes.get(m.node()))).as("flavor %s vs node %s", f.name(), m.node()).isTrue();
                            }
                        }
                    } else if (d instanceof Preempt p) {
                        preemptionsInLastQuietRound++;
                        running.remove(p.jobId());
                        String reason = p.reason();
                        assertThat(reason).startsWith("preempted by ");
                        String preemptor = reason.substring("preempted by ".length(), reason.indexOf(' ', "preempted by ".length()));
                        log.add("round " + quiet + ": " + p.jobId() + " " + reason);
                        // a cycle never dies out (checked below). Under Fairway's strict cohort rules, not even once back: a job admitted within nominal quota is
                        // never a borrower later. Under Kueue's, a job that reclaimed quota may be taken once back when
                        // jobs its queue admitted after it make the queue borrow and it has the lowest priority there,
                        // as in Kueue (it cannot then reclaim again: its queue would not end within nominal quota)
                        if (rulesOfQueue.get(queueOfJob.get(preemptor)) == PreemptionPolicy.CohortRules.FAIRWAY_STRICT
                                || queueOfJob.get(preemptor).equals(queueOfJob.get(p.jobId()))) {
                            assertThat(preemptedBy.keySet()).as("%s preempted %s (%s), which had preempted it, with nothing else changing; %s",
                                    preemptor, p.jobId(), reason, log)
                                    .doesNotContain(p.jobId() + ">" + preemptor);
                        }
                        preemptedBy.put(preemptor + ">" + p.jobId(), reason);
                    }
                }
                assertThat(s.checkInvariants()).isEmpty();
            }
            assertThat(preemptionsInLastQuietRound).as("preemptions keep going with nothing changing: %s", log).isZero();
        }
    }

    /** GPU quotas of flavors fa and fb (random nominal, and with {@code limits} random borrowing and lending limits). */
    private static ResourceGroup gpuGroup(Random rnd, int min, int max, boolean limits) {
        return group(rnd, min, max, limits, false);
    }

    /** {@link #gpuGroup} with 64 CPUs of each flavor besides. */
    private static ResourceGroup group(Random rnd, int min, int max, boolean limits) {
        return group(rnd, min, max, limits, true);
    }

    private static ResourceGroup group(Random rnd, int min, int max, boolean limits, boolean cpu) {
        List<FlavorQuotas> fq = new ArrayList<>();
        for (String f : new String[] {"fa", "fb"}) {
            long nominal = min + rnd.nextInt(max - min + 1);
            long borrow = limits && rnd.nextBoolean() ? rnd.nextInt(6) : ResourceQuota.UNLIMITED;
            long lend = limits && rnd.nextBoolean() ? rnd.nextInt((int) nominal + 1) : ResourceQuota.UNLIMITED;
            ResourceQuota gpus = new ResourceQuota(Resources.GPU, nominal, borrow, lend);
            fq.add(new FlavorQuotas(f, cpu ? List.of(gpus, ResourceQuota.of(Resources.CPU, 64_000)) : List.of(gpus)));
        }
        return new ResourceGroup(cpu ? List.of(Resources.GPU, Resources.CPU) : List.of(Resources.GPU), fq);
    }
}

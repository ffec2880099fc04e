package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
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
import io.fairway.api.spi.PolicyProvider;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.core.SchedulerState;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Reconfiguration never stops rounds, under every policy on the class path (the bundled ones: policies-fifo's and
 * policies-themis's providers). Each try draws a world (2–4 nodes of 8 GPUs, 2–4 ClusterQueues of 8 GPUs, most in one cohort,
 * random preemption settings) and 30–90 steps mixing submissions, starts, finishes, evictions and rounds with
 * reconfigurations: nominal quota, borrowing and lending limits changed, ClusterQueues moved between cohorts,
 * removed (refused while they hold work) and added back, cohorts given quota of their own, a parent, or removed,
 * nodes removed, shrunk and added back. The same steps run under each policy.
 *
 * <p>Checked after every round: it did not throw; {@link Scheduler#checkInvariants()} is empty (its quota check
 * allows only the usage a change left above a limit, as the engine lowers it each round); independently of the
 * engine's books, no ClusterQueue and no cohort above its quota used more after the round than before it; and the
 * exported state restores and exports the same. At the end the original configuration and nodes come back and every
 * job must finish within a bounded number of rounds.
 */
class ReconfigurationProperties {
    private static final long U = ResourceQuota.UNLIMITED;
    private static final String[] COHORTS = {"c0", "c1"};

    static List<PolicyProvider> bundled() {
        List<PolicyProvider> all = new ArrayList<>();
        ServiceLoader.load(PolicyProvider.class).forEach(all::add);
        all.sort(java.util.Comparator.comparing(PolicyProvider::name));
        return all;
    }

    @Property(tries = 40)
    void reconfigurationNeverStopsRoundsAndAllWorkFinishesOnceCapacityReturns(@ForAll long seed, @ForAll @IntRange(min = 30, max = 90) int steps) {
        List<PolicyProvider> policies = bundled();
        assertThat(policies).extracting(PolicyProvider::name).contains("best-effort-fifo", "strict-fifo", "priority", "fair-sharing",
                "fair-share-over-time", "tiresias-las", "srtf", "isolated-share", "themis");
        for (PolicyProvider p : policies) {
            new Run(p, seed, steps).run();
        }
    }

    /** One scenario under one policy. */
    private static final class Run {
        final PolicyProvider provider;
        final long seed;
        final int steps;
        final Random rnd;
        final AtomicLong clock = new AtomicLong();
        final Map<String, ClusterQueue> original = new LinkedHashMap<>();
        final Map<String, Node> nodes = new LinkedHashMap<>();
        final List<String> jobIds = new ArrayList<>();
        Scheduler s;
        String where = "";

        Run(PolicyProvider provider, long seed, int steps) {
            this.provider = provider;
            this.seed = seed;
            this.steps = steps;
            this.rnd = new Random(seed);
        }

        Scheduler.Builder builder() {
            return Scheduler.builder().policy(provider.create(Map.of())).clock(clock::get).seed(seed)
                    .priorityClass(new io.fairway.api.model.PriorityClass("system", 1, false))
                    .priorityClass(new io.fairway.api.model.PriorityClass("batch", 0, true));
        }

        static ClusterQueue queue(String name, String cohort, long nominal, long borrowing, long lending, PreemptionPolicy p) {
            return ClusterQueue.builder(name).cohort(cohort).preemption(p)
                    .resourceGroup(new ResourceGroup(List.of(Resources.GPU, Resources.CPU), List.of(new FlavorQuotas("default",
                            List.of(new ResourceQuota(Resources.GPU, nominal, borrowing, lending), ResourceQuota.of(Resources.CPU, 1_000_000))))))
                    .build();
        }

        void run() {
            Scheduler.Builder b = builder().flavor(ResourceFlavor.of("default"));
            int nodeCount = 2 + rnd.nextInt(3);
            for (int i = 0; i < nodeCount; i++) {
                Node n = Node.builder("n" + i).capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.nvSwitch8("H100")).build();
                nodes.put(n.name(), n);
                b.node(n);
            }
            int queues = 2 + rnd.nextInt(3);
            for (int i = 0; i < queues; i++) {
                PreemptionPolicy p = new PreemptionPolicy(pick(PreemptionPolicy.WithinClusterQueue.values()),
                        pick(PreemptionPolicy.ReclaimWithinCohort.values()), pick(PreemptionPolicy.BorrowWithinCohort.values()));
                // every queue can hold the largest job (8 GPUs) on its own quota once the original configuration is back;
                // most share cohort c0, so a busy queue borrows what its idle neighbours do not use
                ClusterQueue q = queue("q" + i, i == 1 || rnd.nextInt(3) > 0 ? "c0" : "c1", 8, U, U, p);
                original.put(q.name(), q);
                b.clusterQueue(q).localQueue(new LocalQueue("ns", "l" + i, q.name()));
            }
            s = b.build();
            for (int step = 0; step < steps; step++) {
                where = provider.name() + ", seed " + seed + ", step " + step;
                int k = rnd.nextInt(100);
                if (k < 30) {
                    submit();
                } else if (k < 55) {
                    round();
                } else if (k < 65) {
                    finishSome();
                } else if (k < 68) {
                    evictOne();
                } else {
                    reconfigure();
                }
            }
            where = provider.name() + ", seed " + seed + ", after the original configuration came back";
            restoreOriginal();
            int bound = 2 * jobIds.size() + 20;
            for (int i = 0; i < bound && !allEnded(); i++) {
                round();
                finishSome();
            }
            for (String id : jobIds) {
                JobStatus j = s.status(id).orElseThrow();
                assertThat(j.state()).as("%s: job %s within %d rounds (%s)", where, id, bound, j.pendingReason()).isIn(JobState.SUCCEEDED,
                        JobState.CANCELLED);
            }
        }

        <T> T pick(T[] values) {
            return values[rnd.nextInt(values.length)];
        }

        void submit() {
            String id = "j" + jobIds.size();
            int members = 1 + rnd.nextInt(2);
            int gpus = new int[] {1, 2, 4, 8}[rnd.nextInt(members == 1 ? 4 : 3)];
            int c = rnd.nextInt(6); // a job in six names a non-preemptible class, one in six a preemptible one
            JobSpec j = JobSpec.builder(id).namespace("ns").queue("l" + rnd.nextInt(original.size())).priority(rnd.nextInt(3))
                    .priorityClass(c == 0 ? "system" : c == 1 ? "batch" : null)
                    .estimatedSeconds(10 + rnd.nextInt(300)).members(members, Resources.builder().cpu(1).gpus(gpus).build()).build();
            s.submit(j);
            jobIds.add(id);
        }

        boolean allEnded() {
            for (String id : jobIds) {
                if (!s.status(id).orElseThrow().state().isTerminal()) {
                    return false;
                }
            }
            return true;
        }

        void round() {
            Snapshot before = s.snapshot();
            RoundResult r;
            try {
                r = s.runRound();
            } catch (RuntimeException e) {
                throw new AssertionError(where + ": runRound threw " + e, e);
            }
            // whatever the policy and the queues' preemption settings, no job of a non-preemptible class is preempted
            for (io.fairway.api.decision.Decision d : r.decisions()) {
                if (d instanceof io.fairway.api.decision.Preempt p) {
                    JobStatus victim = before.holding().stream().filter(h -> h.id().equals(p.jobId())).findFirst().orElse(null);
                    assertThat(victim == null || victim.spec().priorityClass() == null || victim.spec().priorityClass().preemptible()).as("%s: %s preempted: %s", where, p.jobId(), p.reason()).isTrue();
                }
            }
            // the validator's last line of defence (a plan that as a whole adds to an over-use) must never be needed
            assertThat(r.refused()).as("%s: refusals", where).noneMatch(x -> x.contains("quota invariant"));
            clock.addAndGet(10_000);
            assertThat(s.checkInvariants()).as("%s: checkInvariants after the round", where).isEmpty();
            overUseDidNotGrow(before, s.snapshot());
            SchedulerState exported = s.exportState();
            Scheduler again = Scheduler.restore(exported, builder());
            assertThat(again.exportState()).as("%s: export -> restore -> export", where).isEqualTo(exported);
            for (JobStatus j : s.jobs().all()) {
                if (j.state() == JobState.ADMITTED) {
                    s.reportStarted(j.id());
                }
            }
        }

        void finishSome() {
            for (JobStatus j : s.jobs().all()) {
                if (j.state() == JobState.RUNNING && rnd.nextInt(3) > 0) {
                    s.reportFinished(j.id());
                }
            }
        }

        void evictOne() {
            for (JobStatus j : s.jobs().all()) {
                if (j.state().holdsResources()) {
                    s.reportEvicted(j.id(), "test eviction");
                    return;
                }
            }
        }

        /** One configuration change; a change the engine refuses (naming the field) changes nothing and is fine. */
        void reconfigure() {
            List<String> names = new ArrayList<>(original.keySet());
            String q = names.get(rnd.nextInt(names.size()));
            ClusterQueue cur = s.snapshot().clusterQueues().get(q);
            ClusterQueue base = cur != null ? cur : original.get(q);
            ResourceQuota gq = base.groupFor(Resources.GPU).flavors().get(0).resources().stream().filter(r -> r.resource().equals(Resources.GPU))
                    .findFirst().orElseThrow();
            try {
                switch (rnd.nextInt(10)) {
                    case 0 -> s.queues().addClusterQueue(queue(q, base.cohort(), new long[] {0, 2, 4, 8, 16}[rnd.nextInt(5)], U, U, base.preemption()));
                    case 1 -> s.queues().addClusterQueue(queue(q, base.cohort(), gq.nominal(), new long[] {0, 4, U}[rnd.nextInt(3)], gq.lendingLimit(),
                            base.preemption()));
                    case 2 -> s.queues().addClusterQueue(queue(q, base.cohort(), gq.nominal(), gq.borrowingLimit(),
                            Math.min(gq.nominal(), new long[] {0, 4, U}[rnd.nextInt(3)]), base.preemption()));
                    case 3 -> s.queues().addClusterQueue(queue(q, new String[] {"c0", "c1", "c2", null}[rnd.nextInt(4)], gq.nominal(), U, U,
                            base.preemption()));
                    case 4 -> s.queues().removeClusterQueue(q);
                    case 5 -> {
                        String c = pick(COHORTS);
                        if (rnd.nextBoolean()) {
                            s.queues().removeCohort(c);
                        } else {
                            s.queues().updateCohort(new Cohort(c, rnd.nextBoolean() ? "root" : null, List.of(new ResourceGroup(List.of(Resources.GPU),
                                    List.of(new FlavorQuotas("default", List.of(ResourceQuota.of(Resources.GPU, 4 * rnd.nextInt(3))))))), 1));
                        }
                    }
                    case 6 -> {
                        List<String> present = s.clusters().nodes().stream().map(Node::name).toList();
                        if (present.size() > 1) {
                            s.clusters().removeNode(present.get(rnd.nextInt(present.size())));
                        }
                    }
                    case 7 -> {
                        for (Node n : nodes.values()) {
                            if (s.clusters().nodes().stream().noneMatch(x -> x.name().equals(n.name()))) {
                                s.clusters().addNode(n);
                                break;
                            }
                        }
                    }
                    case 8 -> {
                        List<Node> present = s.clusters().nodes();
                        Node n = present.get(rnd.nextInt(present.size()));
                        s.clusters().updateNode(rnd.nextBoolean()
                                ? Node.builder(n.name()).capacity(Resources.builder().cpu(1 + rnd.nextInt(3)).build()).gpus(GpuTopology.nvSwitch8("H100")).build()
                                : Node.builder(n.name()).capacity(Resources.builder().cpu(64).build()).gpus(GpuTopology.pcie4("H100")).build());
                    }
                    default -> s.queues().stopClusterQueue(q, false);
                }
            } catch (InvalidSpecException refused) {
                assertThat(refused.getMessage()).as("%s: a refused change says why", where).isNotBlank();
            }
        }

        void restoreOriginal() {
            for (String c : new String[] {"c0", "c1", "root"}) {
                s.queues().removeCohort(c);
            }
            original.values().forEach(s.queues()::addClusterQueue);
            for (Node n : nodes.values()) {
                if (s.clusters().nodes().stream().anyMatch(x -> x.name().equals(n.name()))) {
                    s.clusters().updateNode(n);
                } else {
                    s.clusters().addNode(n);
                }
            }
        }

        /**
         * Independently of the engine's quota books (one-level cohorts): a ClusterQueue above nominal plus its
         * borrowing limit (or nominal without a cohort), and a cohort whose queues use more than their nominal quota
         * together, did not use more after the round than before it.
         */
        void overUseDidNotGrow(Snapshot before, Snapshot after) {
            Map<String, Long> usedBefore = gpusByQueue(before);
            Map<String, Long> usedAfter = gpusByQueue(after);
            Map<String, long[]> cohorts = new TreeMap<>(); // cohort -> {nominal, used before, used after}
            boolean overUse = false;
            for (ClusterQueue q : after.clusterQueues().values()) {
                ResourceQuota gq = q.groupFor(Resources.GPU).flavors().get(0).resources().get(0);
                long limit = q.cohort() == null ? gq.nominal() : gq.borrowingLimit() == U ? Long.MAX_VALUE : gq.nominal() + gq.borrowingLimit();
                long a = usedAfter.getOrDefault(q.name(), 0L);
                long bf = usedBefore.getOrDefault(q.name(), 0L);
                overUse |= bf > limit;
                if (a > limit) {
                    assertThat(a).as("%s: ClusterQueue %s above its limit %d grew from %d", where, q.name(), limit, bf).isLessThanOrEqualTo(bf);
                }
                if (q.cohort() != null && !after.cohorts().containsKey(q.cohort())) {
                    long[] c = cohorts.computeIfAbsent(q.cohort(), k -> new long[3]);
                    c[0] += gq.nominal();
                    c[1] += bf;
                    c[2] += a;
                }
            }
            for (long[] v : cohorts.values()) {
                overUse |= v[1] > v[0];
            }
            Statistics.label("rounds starting with work above a quota").collect(overUse);
            cohorts.forEach((c, v) -> {
                if (v[2] > v[0]) {
                    assertThat(v[2]).as("%s: cohort %s above its quota %d grew from %d", where, c, v[0], v[1]).isLessThanOrEqualTo(v[1]);
                }
            });
        }

        static Map<String, Long> gpusByQueue(Snapshot snap) {
            Map<String, Long> m = new HashMap<>();
            for (JobStatus j : snap.holding()) {
                m.merge(j.admission().clusterQueue(), (long) j.admission().placement().gpuCount(), Long::sum);
            }
            return m;
        }
    }
}

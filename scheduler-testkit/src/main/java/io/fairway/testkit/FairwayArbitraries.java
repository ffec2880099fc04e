package io.fairway.testkit;

import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;

/**
 * Reusable jqwik generators: random clusters (mixed GPU shapes, racks, two flavors by node label), random queue
 * set-ups (ClusterQueues in flat cohorts with borrowing and lending limits and preemption settings), random job
 * streams (gangs of 1–4 pod sets of 1–4 members, GPU and cpu-only, elastic pod sets, priorities, rack and NVLink
 * constraints, job sets of many jobs), and random interleavings of the operations an embedding controller performs
 * (including the job-set and queue operations {@code cancelJobSet}, {@code setJobSetPriority}, {@code cancelQueue}
 * and {@code stopClusterQueue}). Faults at rounds come from {@link FaultSchedules}.
 */
public final class FairwayArbitraries {
    /** The node label that selects a flavor. */
    public static final String TIER = "fairway.io/tier";
    /** Flavors, each selecting the nodes of its tier. */
    public static final List<ResourceFlavor> FLAVORS = List.of(
            new ResourceFlavor("reserved", Map.of(TIER, "reserved"), List.of(), List.of()),
            new ResourceFlavor("spot", Map.of(TIER, "spot"), List.of(), List.of()));
    /** The resources every ClusterQueue covers. */
    public static final List<String> COVERED = List.of(Resources.CPU, Resources.MEMORY, Resources.GPU);
    /** The cluster's topology levels. */
    public static final ClusterSpec CLUSTER = new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL));
    /** The GPU shapes nodes are drawn from ({@code none}: a cpu-only node). */
    public static final List<String> SHAPES = List.of("nvswitch-8", "hybrid-cube-mesh-8", "pcie-4", "pcie-2socket-8", "none");

    private FairwayArbitraries() {
    }

    // ------------------------------------------------------------------ the world

    /** A node before it is named: its shape, size, rack and tier. */
    public record NodeTemplate(String shape, int cpuCores, int memoryGiB, int rack, boolean spot) {
        /** @param name the node name @return the node */
        public Node build(String name) {
            Node.Builder b = Node.builder(name)
                    .capacity(Resources.builder().cpu(cpuCores).memoryGiB(memoryGiB).build())
                    .label(ClusterSpec.RACK_LABEL, "r" + rack)
                    .label(TIER, spot ? "spot" : "reserved");
            if (!shape.equals("none")) {
                b.gpus(GpuTopology.named(shape, "gpu"));
            }
            return b.build();
        }
    }

    /** Everything a scheduler is configured with. */
    public record World(List<Node> nodes, List<Cohort> cohorts, List<ClusterQueue> clusterQueues, List<LocalQueue> localQueues) {
        /** @return the LocalQueue names jobs may submit to */
        public List<String> queueNames() {
            List<String> l = new ArrayList<>();
            for (LocalQueue q : localQueues) {
                l.add(q.name());
            }
            return l;
        }
    }

    /** @return nodes of mixed shapes, sizes, racks and tiers */
    public static Arbitrary<NodeTemplate> nodeTemplates() {
        return Combinators.combine(
                Arbitraries.of(SHAPES),
                Arbitraries.of(16, 32, 64, 128),
                Arbitraries.of(256, 512, 1024),
                Arbitraries.integers().between(0, 3),
                Arbitraries.of(false, false, true)).as(NodeTemplate::new);
    }

    /** A ClusterQueue's quota of one resource in one flavor, with limits used only inside a cohort. */
    public record QuotaTemplate(long nominal, long borrowingLimit, long lendingLimit) {
    }

    private static Arbitrary<QuotaTemplate> quota(long min, long max, long unit) {
        // mostly room for a few jobs, sometimes none at all
        Arbitrary<Long> nominal = Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.just(0L)),
                Tuple.of(6, Arbitraries.longs().between(min, max).map(v -> v * unit)));
        Arbitrary<Long> limit = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.just(ResourceQuota.UNLIMITED)),
                Tuple.of(2, Arbitraries.longs().between(0, max / 2).map(v -> v * unit)));
        return Combinators.combine(nominal, limit, limit).as((n, b, l) -> new QuotaTemplate(n, b, l == ResourceQuota.UNLIMITED ? l : Math.min(l, n)));
    }

    /** A ClusterQueue before it is named. */
    public record QueueTemplate(int cohort, boolean spotFirst, boolean bothFlavors, List<QuotaTemplate> reserved, List<QuotaTemplate> spot,
                                PreemptionPolicy preemption) {
        /** @param name the ClusterQueue name @return the ClusterQueue */
        public ClusterQueue build(String name) {
            String cohortName = cohort < 0 ? null : "co" + cohort;
            List<FlavorQuotas> flavors = new ArrayList<>();
            FlavorQuotas r = flavor("reserved", reserved, cohortName != null);
            FlavorQuotas s = flavor("spot", spot, cohortName != null);
            if (!bothFlavors) {
                flavors.add(spotFirst ? s : r);
            } else if (spotFirst) {
                flavors.addAll(List.of(s, r));
            } else {
                flavors.addAll(List.of(r, s));
            }
            return ClusterQueue.builder(name).cohort(cohortName).preemption(preemption)
                    .resourceGroup(new ResourceGroup(COVERED, flavors)).build();
        }

        private static FlavorQuotas flavor(String name, List<QuotaTemplate> q, boolean inCohort) {
            List<ResourceQuota> l = new ArrayList<>();
            for (int i = 0; i < COVERED.size(); i++) {
                QuotaTemplate t = q.get(i);
                l.add(inCohort ? new ResourceQuota(COVERED.get(i), t.nominal(), t.borrowingLimit(), t.lendingLimit())
                        : ResourceQuota.of(COVERED.get(i), t.nominal()));
            }
            return new FlavorQuotas(name, l);
        }
    }

    private static Arbitrary<List<QuotaTemplate>> quotas() {
        return Combinators.combine(quota(16, 256, 1000), quota(128, 2048, 1L << 30), quota(2, 32, 1)).as(List::of);
    }

    /** @return ClusterQueue templates: in one of two cohorts or none, one or two flavors, any preemption policy */
    public static Arbitrary<QueueTemplate> queueTemplates() {
        Arbitrary<PreemptionPolicy> preemption = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(PreemptionPolicy.NEVER)),
                Tuple.of(3, Combinators.combine(
                        Arbitraries.of(PreemptionPolicy.WithinClusterQueue.class),
                        Arbitraries.of(PreemptionPolicy.ReclaimWithinCohort.class),
                        Arbitraries.of(PreemptionPolicy.BorrowWithinCohort.class)).as(PreemptionPolicy::new)));
        return Combinators.combine(Arbitraries.integers().between(-1, 1), Arbitraries.of(true, false), Arbitraries.of(true, false),
                quotas(), quotas(), preemption).as(QueueTemplate::new);
    }

    /**
     * @return clusters of 2–8 nodes and 1–4 ClusterQueues, each with a LocalQueue {@code default/lqN}; the cohorts
     *     {@code co0} and {@code co1} are roots, or (one world in three) children of a root cohort {@code root}, so that
     *     queues of the two may lend each other through it
     */
    public static Arbitrary<World> worlds() {
        return Combinators.combine(nodeTemplates().list().ofMinSize(2).ofMaxSize(8).withSizeDistribution(RandomDistribution.uniform()),
                        queueTemplates().list().ofMinSize(1).ofMaxSize(4), Arbitraries.of(false, false, true))
                .as((nodes, queues, nested) -> {
                    List<Node> ns = new ArrayList<>();
                    for (int i = 0; i < nodes.size(); i++) {
                        ns.add(nodes.get(i).build("n" + i));
                    }
                    List<ClusterQueue> cqs = new ArrayList<>();
                    List<LocalQueue> lqs = new ArrayList<>();
                    for (int i = 0; i < queues.size(); i++) {
                        cqs.add(queues.get(i).build("cq" + i));
                        lqs.add(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq" + i, "cq" + i));
                    }
                    List<Cohort> cohorts = nested
                            ? List.of(Cohort.of("co0", "root"), Cohort.of("co1", "root"), Cohort.of("root", null))
                            : List.of(Cohort.of("co0", null), Cohort.of("co1", null));
                    return new World(ns, cohorts, cqs, lqs);
                });
    }

    // ------------------------------------------------------------------ jobs

    /**
     * A job before it gets its id: the LocalQueue it submits to (by index, or a missing one), priority, pod sets, the
     * job set it belongs to, and what it tells the scheduler about its run (an estimate, checkpointing).
     *
     * @param queue the LocalQueue index (modulo the world's queues), or {@link #MISSING_QUEUE}
     * @param priority the priority
     * @param podSets the pod sets
     * @param jobSet the job set index ({@link #jobSetName(int)}), or {@link #OWN_SET} for a job set of its own
     * @param estimatedSeconds the run time it announces ({@link JobSpec#estimatedSeconds()}), 0 when unknown
     * @param checkpointing how it checkpoints, or null when it does not
     */
    public record JobTemplate(int queue, int priority, List<PodSet> podSets, int jobSet, double estimatedSeconds,
                              Checkpointing checkpointing) {
        /** The queue index that names a LocalQueue nobody created. */
        public static final int MISSING_QUEUE = 99;
        /** The job set index meaning "a job set of its own" (the job id, JobSpec's default). */
        public static final int OWN_SET = -1;

        /**
         * A job without an estimate or checkpointing.
         *
         * @param queue the LocalQueue index @param priority the priority @param podSets the pod sets
         * @param jobSet the job set index, or {@link #OWN_SET}
         */
        public JobTemplate(int queue, int priority, List<PodSet> podSets, int jobSet) {
            this(queue, priority, podSets, jobSet, 0, null);
        }

        /**
         * A job in a job set of its own, without an estimate or checkpointing.
         *
         * @param queue the LocalQueue index @param priority the priority @param podSets the pod sets
         */
        public JobTemplate(int queue, int priority, List<PodSet> podSets) {
            this(queue, priority, podSets, OWN_SET);
        }

        /** @param set a job set index @return this job in that job set */
        public JobTemplate inJobSet(int set) {
            return new JobTemplate(queue, priority, podSets, set, estimatedSeconds, checkpointing);
        }

        /**
         * @param seconds the estimated run time (0: unknown) @param checkpoints how it checkpoints, or null
         * @return this job announcing that estimate and checkpointing
         */
        public JobTemplate withEstimate(double seconds, Checkpointing checkpoints) {
            return new JobTemplate(queue, priority, podSets, jobSet, seconds, checkpoints);
        }

        /**
         * @param id the job id
         * @param world the world, whose LocalQueues the queue index picks from
         * @return the job
         */
        public JobSpec build(String id, World world) {
            String q = queue == MISSING_QUEUE ? "missing" : world.localQueues().get(queue % world.localQueues().size()).name();
            JobSpec.Builder b = JobSpec.builder(id).queue(q).priority(priority).estimatedSeconds(estimatedSeconds);
            if (jobSet != OWN_SET) {
                b.jobSet(jobSetName(jobSet));
            }
            if (checkpointing != null) {
                b.checkpointing(checkpointing);
            }
            podSets.forEach(b::podSet);
            return b.build();
        }
    }

    /** @return checkpointing every 5–30 minutes, each checkpoint costing 5–30 s and a restore 10–60 s */
    public static Arbitrary<Checkpointing> checkpointings() {
        return Combinators.combine(Arbitraries.integers().between(5, 30), Arbitraries.integers().between(5, 30),
                Arbitraries.integers().between(10, 60)).as((every, cost, restore) -> new Checkpointing(every * 60.0, cost, restore));
    }

    /** @return estimated run times: unknown (0) for one job in three, else 1 minute to 4 hours */
    public static Arbitrary<Double> estimates() {
        return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(0.0)),
                Tuple.of(2, Arbitraries.integers().between(60, 14_400).map(Integer::doubleValue)));
    }

    /** @return per-member resources: GPU members (1, 2, 4 or 8 GPUs) or cpu-only ones */
    public static Arbitrary<Resources> memberResources() {
        Arbitrary<Resources> gpu = Combinators.combine(Arbitraries.of(1, 1, 2, 2, 4, 8), Arbitraries.integers().between(1, 8),
                Arbitraries.integers().between(1, 32)).as((g, c, m) -> Resources.builder().gpus(g).cpu(c).memoryGiB(m).build());
        Arbitrary<Resources> cpu = Combinators.combine(Arbitraries.integers().between(1, 16), Arbitraries.integers().between(1, 64))
                .as((c, m) -> Resources.builder().cpu(c).memoryGiB(m).build());
        return Arbitraries.frequencyOf(Tuple.of(3, gpu), Tuple.of(1, cpu));
    }

    /**
     * @return pod sets of 1–4 members, sometimes with a rack or NVLink constraint, sometimes elastic (any minCount from
     *     1 to one below the count)
     */
    public static Arbitrary<PodSet> podSets(String name) {
        return Combinators.combine(Arbitraries.integers().between(1, 4), memberResources(), Arbitraries.integers().between(0, 15))
                .as((count, res, t) -> {
                    TopologyRequest topology = switch (t) {
                        case 0 -> TopologyRequest.required(ClusterSpec.RACK_LABEL);
                        case 1 -> TopologyRequest.preferred(ClusterSpec.RACK_LABEL);
                        case 2 -> res.gpus() > 0 ? TopologyRequest.nvlinkDomain() : TopologyRequest.NONE;
                        case 3 -> TopologyRequest.spreadAcrossNodes();
                        default -> TopologyRequest.NONE;
                    };
                    PodSet ps = PodSet.of(name, count, res).withTopology(topology);
                    // one pod set in six of two or more members is elastic: it may run with minCount members up to all of them
                    return count > 1 && t % 6 == 5 ? ps.withMinCount(1 + (t / 6) % (count - 1)) : ps;
                });
    }

    /** @param set a job set index @return the job set id jobs of that index carry */
    public static String jobSetName(int set) {
        return "set" + set;
    }

    /**
     * @return jobs: gangs of 1–4 pod sets, priorities 0–3, mostly to existing queues, half of them in one of four job
     *     sets; two in three announce an estimated run time, one in four checkpoints
     */
    public static Arbitrary<JobTemplate> jobTemplates() {
        Arbitrary<List<PodSet>> gang = Arbitraries.frequencyOf(
                Tuple.of(6, podSets("ps0").map(List::of)),
                Tuple.of(2, Combinators.combine(podSets("ps0"), podSets("ps1")).as(List::of)),
                Tuple.of(1, Combinators.combine(podSets("ps0"), podSets("ps1"), podSets("ps2")).as(List::of)),
                Tuple.of(1, Combinators.combine(podSets("ps0"), podSets("ps1"), podSets("ps2"), podSets("ps3")).as(List::of)));
        Arbitrary<Integer> queue = Arbitraries.frequencyOf(Tuple.of(39, Arbitraries.integers().between(0, 3)), Tuple.of(1, Arbitraries.just(JobTemplate.MISSING_QUEUE)));
        Arbitrary<Integer> jobSet = Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.just(JobTemplate.OWN_SET)),
                Tuple.of(1, Arbitraries.integers().between(0, 3)));
        return Combinators.combine(queue, Arbitraries.integers().between(0, 3), gang, jobSet, estimates(), checkpointings().injectNull(0.75))
                .as(JobTemplate::new);
    }

    // ------------------------------------------------------------------ operations

    /** What an embedding controller does to the scheduler. Picks are resolved modulo the candidates at the time. */
    public sealed interface Op {
    }

    /** Submit a job (gets the next id). */
    public record Submit(JobTemplate job) implements Op {
    }

    /** Submit several jobs at once. */
    public record SubmitBatch(List<JobTemplate> jobs) implements Op {
    }

    /**
     * Submit many jobs under one job set id at once (Armada's job set): the jobs' own job set indexes are replaced.
     *
     * @param set the job set index @param jobs the jobs
     */
    public record SubmitJobSet(int set, List<JobTemplate> jobs) implements Op {
    }

    /** Cancel every live job of a job set ({@code Scheduler.cancelJobSet}); the set is picked among those submitted. */
    public record CancelJobSet(int pick) implements Op {
    }

    /** Change the priority of every live job of a job set ({@code Scheduler.setJobSetPriority}). */
    public record SetJobSetPriority(int pick, int priority) implements Op {
    }

    /** Cancel every live job of a ClusterQueue ({@code Scheduler.cancelQueue}); the queue is picked among the world's. */
    public record CancelQueue(int pick) implements Op {
    }

    /** Stop or reopen a ClusterQueue ({@code Scheduler.stopClusterQueue}): a stopped one admits nothing new. */
    public record StopClusterQueue(int pick, boolean stopped) implements Op {
    }

    /** Run a round. */
    public record RunRound() implements Op {
    }

    /** Report an admitted job started. */
    public record Start(int pick) implements Op {
    }

    /** Report a job holding resources finished (or failed). */
    public record Finish(int pick, boolean failed) implements Op {
    }

    /** Cancel any job (also pending or finished ones). */
    public record Cancel(int pick) implements Op {
    }

    /** Remove (lose) a node. */
    public record RemoveNode(int pick) implements Op {
    }

    /** Add a node (gets the next name). */
    public record AddNode(NodeTemplate node) implements Op {
    }

    /** Cordon or uncordon a node. */
    public record Cordon(int pick, boolean cordoned) implements Op {
    }

    /** Advance the clock. */
    public record Tick(int seconds) implements Op {
    }

    /** @return one operation, rounds and submissions most often; job-set and queue operations now and then */
    public static Arbitrary<Op> operations() {
        Arbitrary<Integer> pick = Arbitraries.integers().between(0, 1_000);
        return Arbitraries.frequencyOf(
                Tuple.of(28, jobTemplates().map(Submit::new)),
                Tuple.of(4, jobTemplates().list().ofMinSize(2).ofMaxSize(5).map(SubmitBatch::new)),
                Tuple.of(3, Combinators.combine(Arbitraries.integers().between(0, 5), jobTemplates().list().ofMinSize(2).ofMaxSize(8))
                        .as(SubmitJobSet::new)),
                Tuple.of(2, pick.map(CancelJobSet::new)),
                Tuple.of(2, Combinators.combine(pick, Arbitraries.integers().between(0, 5)).as(SetJobSetPriority::new)),
                Tuple.of(1, pick.map(CancelQueue::new)),
                Tuple.of(1, Combinators.combine(pick, Arbitraries.of(true, false, false)).as(StopClusterQueue::new)),
                Tuple.of(24, Arbitraries.just(new RunRound())),
                Tuple.of(14, pick.map(Start::new)),
                Tuple.of(8, Combinators.combine(pick, Arbitraries.of(false, false, false, true)).as(Finish::new)),
                Tuple.of(5, pick.map(Cancel::new)),
                Tuple.of(3, pick.map(RemoveNode::new)),
                Tuple.of(3, nodeTemplates().map(AddNode::new)),
                Tuple.of(4, Combinators.combine(pick, Arbitraries.of(true, false)).as(Cordon::new)),
                Tuple.of(4, Arbitraries.integers().between(1, 600).map(Tick::new)));
    }

    /** @return operation lists of 5–80 steps */
    public static Arbitrary<List<Op>> operationLists() {
        return operations().list().ofMinSize(5).ofMaxSize(80).withSizeDistribution(RandomDistribution.uniform());
    }

    /** The three FIFO policies. */
    public enum FifoPolicy {
        STRICT_FIFO("strict-fifo"), BEST_EFFORT_FIFO("best-effort-fifo"), PRIORITY("priority");

        /** The name the policy is configured by. */
        public final String policyName;

        FifoPolicy(String policyName) {
            this.policyName = policyName;
        }
    }
}

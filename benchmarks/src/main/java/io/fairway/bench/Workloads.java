package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Clock;
import io.fairway.core.snapshot.PlacementStrategy;
import io.fairway.core.Scheduler;
import io.fairway.core.snapshot.Snapshot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workloads of the scale benchmarks, built the same way everywhere: nodes of 8 GPUs in racks of 16,
 * ClusterQueues in cohorts of 100 (10 cohorts for 1,000 queues, Kueue's large-scale shape), each queue's
 * nominal GPU quota an equal share of the cluster (borrowing within its cohort allowed), one-GPU jobs spread
 * round-robin over the queues in submission order.
 */
final class Workloads {
    static final String FLAVOR = "default";

    private Workloads() {
    }

    /** The cluster's nodes: {@code count} × 8 GPUs (NVSwitch), 128 CPUs, 1 TiB. */
    static List<Node> nodes(int count) {
        List<Node> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            nodes.add(Node.builder("node-" + i)
                    .capacity(Resources.builder().cpu(128).memoryGiB(1024).build())
                    .gpus(GpuTopology.named("nvswitch-8", "H100"))
                    .label(ClusterSpec.RACK_LABEL, "r" + i / 16)
                    .build());
        }
        return nodes;
    }

    static int cohortsFor(int queues) {
        return Math.max(1, queues / 100);
    }

    /** {@code queues} ClusterQueues named cq-i in cohorts co-k, each with an equal share of {@code totalGpus}. */
    static Map<String, ClusterQueue> clusterQueues(int queues, long totalGpus) {
        int cohorts = cohortsFor(queues);
        long share = Math.max(1, totalGpus / queues);
        Map<String, ClusterQueue> m = new LinkedHashMap<>();
        for (int q = 0; q < queues; q++) {
            m.put("cq-" + q, ClusterQueue.builder("cq-" + q).cohort("co-" + q % cohorts)
                    .quota(FLAVOR, Resources.builder().cpu(share * 16).memoryGiB(share * 128).gpus(share).build()).build());
        }
        return m;
    }

    static Map<String, Cohort> cohorts(int queues) {
        Map<String, Cohort> m = new LinkedHashMap<>();
        for (int c = 0; c < cohortsFor(queues); c++) {
            m.put("co-" + c, Cohort.of("co-" + c, null));
        }
        return m;
    }

    static Map<String, LocalQueue> localQueues(int queues) {
        Map<String, LocalQueue> m = new LinkedHashMap<>();
        for (int q = 0; q < queues; q++) {
            LocalQueue lq = new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q);
            m.put(lq.key(), lq);
        }
        return m;
    }

    /** A one-GPU job of queue {@code i % queues}. */
    static JobSpec oneGpuJob(String id, long i, int queues) {
        return JobSpec.builder(id).queue("lq-" + (i % queues))
                .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).memoryGiB(8).gpus(1).build())).build();
    }

    static JobStatus pending(JobSpec spec, long sequence) {
        return new JobStatus(spec, JobState.PENDING, PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "submitted"), null, 0, 0,
                sequence, 0, 0, -1);
    }

    /** A running job holding all 8 GPUs of {@code node}, admitted in {@code cq}. */
    static JobStatus fullNode(String id, String node, String cq, long sequence) {
        JobSpec spec = JobSpec.builder(id).queue("lq-0")
                .podSet(PodSet.of("main", 1, Resources.builder().cpu(8).memoryGiB(64).gpus(8).build())).build();
        Placement p = new Placement(List.of(new MemberPlacement("main", 0, node, List.of(0, 1, 2, 3, 4, 5, 6, 7))), null, 1.0);
        Admit a = new Admit(id, cq, Map.of("main", FLAVOR), Map.of("main", 1), p);
        return new JobStatus(spec, JobState.RUNNING, null, a, 0, 0, sequence, 0, 0, -1);
    }

    /**
     * A snapshot of {@code nodes} × 8 GPUs, {@code queues} ClusterQueues, {@code jobs} pending one-GPU jobs; when
     * {@code full}, every node is already taken by a running 8-GPU job (so nothing pending can fit).
     */
    static Snapshot snapshot(int nodes, int queues, int jobs, boolean full) {
        List<Node> ns = nodes(nodes);
        List<JobStatus> pending = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            pending.add(pending(oneGpuJob("j" + i, i, queues), i + 1L));
        }
        List<JobStatus> holding = new ArrayList<>();
        if (full) {
            for (int i = 0; i < nodes; i++) {
                holding.add(fullNode("busy-" + i, ns.get(i).name(), "cq-" + (i % queues), 10_000_000L + i));
            }
        }
        Snapshot s = new Snapshot(1, 0, 1, Map.of(Node.DEFAULT_CLUSTER, new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL))), ns,
                Map.of(FLAVOR, ResourceFlavor.of(FLAVOR)), clusterQueues(queues, nodes * 8L), cohorts(queues), localQueues(queues), pending,
                holding, Map.of(), PlacementStrategy.TOPOLOGY_AWARE);
        return full ? settled(s) : s;
    }

    /**
     * The same snapshot one round later, as an engine holds it: every pending job carries the reason the previous
     * round (best-effort-fifo) gave it. A round on it measures the steady state of a full cluster, where nothing
     * changed since the last round; the first no-fit round, which reports every job's new reason, is {@code
     * firstNoFit} where a benchmark has it.
     */
    static Snapshot settled(Snapshot s) {
        io.fairway.core.RoundResult r = io.fairway.core.Rounds.run(s, io.fairway.core.Policies.create("best-effort-fifo", Map.of()));
        List<JobStatus> pending = new ArrayList<>(s.pending().size());
        for (JobStatus j : s.pending()) {
            PendingReason reason = r.pendingReasons().getOrDefault(j.id(), j.pendingReason());
            pending.add(new JobStatus(j.spec(), j.state(), reason, null, j.stateSinceMillis(), j.preemptions(), j.sequence(),
                    j.attainedGpuMillis(), j.runningMillis(), j.progress()));
        }
        return new Snapshot(s.round() + 1, s.nowMillis(), s.seed(), s.clusters(), s.nodes(), s.flavors(), s.clusterQueues(), s.cohorts(),
                s.localQueues(), pending, s.holding(), s.decayedUsage(), s.placement(), s.provisioning());
    }

    /** A manual clock for drivers with simulated time. */
    static final class ManualClock implements Clock {
        long now;

        @Override
        public long millis() {
            return now;
        }
    }

    /** A scheduler with the cluster and queues of {@link #snapshot} and no jobs. */
    static Scheduler scheduler(int nodes, int queues, String policy, Clock clock) {
        Scheduler.Builder b = Scheduler.builder().policy(policy).clock(clock)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of(FLAVOR)).nodes(nodes(nodes));
        cohorts(queues).values().forEach(b::cohort);
        clusterQueues(queues, nodes * 8L).values().forEach(b::clusterQueue);
        localQueues(queues).values().forEach(b::localQueue);
        return b.build();
    }
}

package io.fairway.bench;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.Cohort;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.PreemptionPolicy;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Whole-engine target 6 of docs/performance.md: the cost of a round against pending jobs and against distinct
 * groups. 1,000
 * nodes × 8 GPUs, 100 ClusterQueues in 10 cohorts (80 GPUs each, preemption {@code LowerPriority} /
 * {@code reclaimWithinCohort: Any}), {@code fair-sharing}, a listener registered. The cluster is first filled by 8,000
 * one-GPU jobs of priority 1,000 (80 per queue, none borrowing: no pending job can preempt). Then {@code pending} jobs
 * arrive in {@code groups} distinct groups (job i in group i mod groups; a group is a queue, a priority 0–999 and a
 * CPU request 1–10 with one GPU), and rounds run in which nothing fits: the first after the arrival (it sorts the new
 * groups) and {@code rounds} more. Prints, per point, the first round and the median of the others (wall ms).
 *
 * <p>A one-shot harness (million-job setups do not suit JMH's iterations). Run:
 * {@code java -Xms8g -Xmx8g -XX:+AlwaysPreTouch -cp benchmarks/target/benchmarks.jar io.fairway.bench.GrowthCurves}
 * (default points: pending 10k/100k/1M at 1,000 groups, and groups 1k/10k/100k/1M at 1M pending), or give points as
 * {@code PENDING:GROUPS} arguments.
 */
public final class GrowthCurves {
    private static final int NODES = 1_000;
    private static final int QUEUES = 100;
    private static final int ROUNDS = 5;

    private GrowthCurves() {
    }

    /** @param args points as PENDING:GROUPS, or none for the default curves */
    public static void main(String[] args) {
        List<int[]> points = new ArrayList<>();
        if (args.length == 0) {
            for (int p : new int[] {10_000, 100_000, 1_000_000}) {
                points.add(new int[] {p, 1_000});
            }
            for (int g : new int[] {10_000, 100_000, 1_000_000}) {
                points.add(new int[] {1_000_000, g});
            }
        } else {
            for (String a : args) {
                String[] pg = a.split(":");
                points.add(new int[] {Integer.parseInt(pg[0]), Integer.parseInt(pg[1])});
            }
        }
        System.out.printf(Locale.ROOT, "# %s, %d nodes x 8 GPUs, %d ClusterQueues, fair-sharing with preemption; wall ms%n", Runtime.version(), NODES, QUEUES);
        System.out.printf(Locale.ROOT, "%10s %10s %12s %14s %12s%n", "pending", "groups", "first round", "steady median", "steady max");
        for (int[] pt : points) {
            measure(pt[0], pt[1]);
            System.gc();
        }
    }

    private static void measure(int pending, int groups) {
        Workloads.ManualClock clock = new Workloads.ManualClock();
        Scheduler s = scheduler(clock);
        long[] heard = {0};
        s.addListener(e -> heard[0]++);
        List<JobSpec> blockers = new ArrayList<>(NODES * 8);
        for (int i = 0; i < NODES * 8; i++) {
            blockers.add(JobSpec.builder("blocker-" + i).queue("lq-" + i % QUEUES).priority(1_000)
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(1).memoryGiB(8).gpus(1).build())).build());
        }
        s.submitAll(blockers);
        RoundResult fill = s.runRound();
        if (fill.decisions().size() < NODES * 8) {
            throw new IllegalStateException("the blockers did not fill the cluster: " + fill.decisions().size());
        }
        clock.now += 1_000;
        List<JobSpec> batch = new ArrayList<>(pending);
        for (int i = 0; i < pending; i++) {
            int g = i % groups;
            batch.add(JobSpec.builder("job-" + i).queue("lq-" + g % QUEUES).priority((g / QUEUES) % 1_000)
                    .podSet(PodSet.of("main", 1, Resources.builder().cpu(1 + (g / (QUEUES * 1_000)) % 10).memoryGiB(8).gpus(1).build())).build());
        }
        s.submitAll(batch);
        long t0 = System.nanoTime();
        RoundResult first = s.runRound();
        double firstMs = (System.nanoTime() - t0) / 1e6;
        double[] steady = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            clock.now += 1_000;
            long t = System.nanoTime();
            RoundResult rr = s.runRound();
            steady[r] = (System.nanoTime() - t) / 1e6;
            if (!rr.decisions().isEmpty() || !first.decisions().isEmpty()) {
                throw new IllegalStateException("a round admitted or preempted: the point does not measure a full cluster");
            }
        }
        int actualGroups = s.snapshot().pendingIndex().groups().size();
        Arrays.sort(steady);
        System.out.printf(Locale.ROOT, "%10d %10d %12.1f %14.1f %12.1f%n", pending, actualGroups, firstMs, steady[ROUNDS / 2], steady[ROUNDS - 1]);
    }

    private static Scheduler scheduler(Workloads.ManualClock clock) {
        Scheduler.Builder b = Scheduler.builder().policy("fair-sharing").clock(clock).seed(1)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of(Workloads.FLAVOR)).nodes(Workloads.nodes(NODES));
        for (int c = 0; c < 10; c++) {
            b.cohort(Cohort.of("co-" + c, null));
        }
        PreemptionPolicy preemption = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        for (int q = 0; q < QUEUES; q++) {
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("co-" + q % 10).preemption(preemption)
                    .quota(Workloads.FLAVOR, Resources.builder().cpu(80 * 16).memoryGiB(80 * 128).gpus(80).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        return b.build();
    }
}

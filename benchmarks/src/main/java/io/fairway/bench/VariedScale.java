package io.fairway.bench;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.job.TopologyRequest;
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
import java.util.List;
import java.util.SplittableRandom;

/**
 * Whole-engine target 1 of docs/performance.md: {@code jobs} pending varied jobs (default 1,000,000) on 10,000 nodes
 * × 8 GPUs,
 * 1,000 ClusterQueues in 10 cohorts (each an equal share of the GPUs, preemption {@code LowerPriority} /
 * {@code reclaimWithinCohort: Any}), fair sharing, a listener registered. Jobs: 1, 2, 4 or 8 GPUs on one node, or
 * gangs of 2, 4 or 8 members × 8 GPUs in one rack (required or preferred); priorities 0-999 and queues at random
 * (seeded), so the jobs fall into hundreds of thousands of groups. Prints the groups, {@code submitAll}, the first
 * {@code runRound()} (fills the cluster) and then {@code rounds} steady rounds in which 1 % of the running jobs finish
 * and as many arrive (wall and the round's compute time), and how busy the cluster is; then the steady rounds' medians,
 * all of them and those after the third (by then the admission and preemption counts have levelled off).
 *
 * <p>A one-shot harness (a million-job setup does not suit JMH's iterations). Run:
 * {@code java -Xms10g -Xmx10g -XX:+AlwaysPreTouch -cp benchmarks/target/benchmarks.jar io.fairway.bench.VariedScale 1000000 8}.
 */
public final class VariedScale {
    private VariedScale() {
    }

    /**
     * @param args optional: pending jobs, steady rounds
     */
    public static void main(String[] args) {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int nodes = 10_000;
        int queues = 1_000;
        Workloads.ManualClock clock = new Workloads.ManualClock();
        Scheduler.Builder b = Scheduler.builder().policy("fair-sharing").clock(clock).seed(1)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of(Workloads.FLAVOR)).nodes(Workloads.nodes(nodes));
        for (int c = 0; c < 10; c++) {
            b.cohort(Cohort.of("co-" + c, null));
        }
        long share = nodes * 8L / queues;
        PreemptionPolicy preemption = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        for (int q = 0; q < queues; q++) {
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("co-" + q % 10).preemption(preemption)
                    .quota(Workloads.FLAVOR, Resources.builder().cpu(share * 16).memoryGiB(share * 128).gpus(share).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        Scheduler s = b.build();
        long[] heard = new long[1];
        s.addListener(e -> heard[0] += e.reason() == null ? 1 : e.reason().length());
        SplittableRandom random = new SplittableRandom(42);
        long[] next = {0};
        List<JobSpec> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            batch.add(job(random, next[0]++, queues, 0));
        }
        long t0 = System.nanoTime();
        s.submitAll(batch);
        long submit = System.nanoTime() - t0;
        batch = null;
        System.out.printf("pending=%d queues=%d nodes=%d gpus=%d groups=%d policy=fair-sharing jdk=%s%n", jobs, queues, nodes, nodes * 8,
                s.snapshot().pendingIndex().groups().size(), Runtime.version());
        System.out.printf("submitAll: %.0f ms%n", submit / 1e6);
        List<String> running = new ArrayList<>();
        List<double[]> steady = new ArrayList<>(); // wall and compute (ms) of each steady round
        for (int r = 0; r <= rounds; r++) {
            if (r > 0) {
                clock.now += 10_000;
                int finish = Math.max(1, running.size() / 100);
                List<JobSpec> arrivals = new ArrayList<>(finish);
                for (int k = 0; k < finish && !running.isEmpty(); k++) {
                    int at = random.nextInt(running.size());
                    String id = running.get(at);
                    running.set(at, running.get(running.size() - 1));
                    running.remove(running.size() - 1);
                    s.reportFinished(id);
                    s.jobs().forget(id);
                    arrivals.add(job(random, next[0]++, queues, clock.now));
                }
                s.submitAll(arrivals);
            }
            long w = System.nanoTime();
            RoundResult res = s.runRound();
            long wall = System.nanoTime() - w;
            int admitted = 0;
            int preempted = 0;
            for (Decision d : res.decisions()) {
                if (d instanceof Admit a) {
                    running.add(a.jobId());
                    admitted++;
                } else if (d instanceof Preempt p) {
                    running.remove(p.jobId());
                    preempted++;
                }
            }
            long busy = busyGpus(s);
            if (r > 0) {
                steady.add(new double[] {wall / 1e6, res.computeNanos() / 1e6});
            }
            System.out.printf("%s round: admitted %d, preempted %d, wall %.0f ms, compute %.0f ms, cluster %.1f %% busy%n",
                    r == 0 ? "first" : "steady", admitted, preempted, wall / 1e6, res.computeNanos() / 1e6, 100.0 * busy / (nodes * 8L));
        }
        summarize(steady);
        System.out.println(heard[0] > 0 ? "events heard" : "no events");
    }

    /** @return the GPUs of the jobs that hold resources */
    private static long busyGpus(Scheduler s) {
        long busy = 0;
        for (var j : s.jobs().all()) {
            if (j.state().holdsResources() && j.admission() != null) {
                for (PodSet ps : j.spec().podSets()) {
                    busy += ps.resources().gpus() * ps.count();
                }
            }
        }
        return busy;
    }

    /**
     * The steady rounds' medians: all of them, and those after the third, when the queues have settled (the first
     * steady rounds still move the cluster toward the fair shares: thousands of admissions and preemptions each; at a
     * million jobs the later ones make 350-450 admissions and 190-270 preemptions a round).
     */
    private static void summarize(List<double[]> steady) {
        if (steady.isEmpty()) {
            return;
        }
        System.out.printf("steady rounds 1-%d: median wall %.0f ms, compute %.0f ms%n", steady.size(), median(steady, 0), median(steady, 1));
        if (steady.size() > 3) {
            List<double[]> settled = steady.subList(3, steady.size());
            System.out.printf("steady rounds 4-%d (settled): median wall %.0f ms, compute %.0f ms%n", steady.size(), median(settled, 0),
                    median(settled, 1));
        }
    }

    private static double median(List<double[]> rows, int column) {
        double[] v = rows.stream().mapToDouble(row -> row[column]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** 1, 2, 4 or 8 GPUs on one node (80 %), or a gang of 2, 4 or 8 members × 8 GPUs in one rack (20 %). */
    static JobSpec job(SplittableRandom random, long i, int queues, long now) {
        JobSpec.Builder j = JobSpec.builder("job-" + i).queue("lq-" + random.nextInt(queues)).priority(random.nextInt(1000)).submitTimeMillis(now);
        int kind = random.nextInt(10);
        if (kind < 8) {
            int gpus = 1 << random.nextInt(4);
            return j.podSet(PodSet.of("main", 1, Resources.builder().cpu(2L * gpus).memoryGiB(16L * gpus).gpus(gpus).build())).build();
        }
        int members = 2 << random.nextInt(3);
        TopologyRequest t = kind == 8 ? TopologyRequest.required(ClusterSpec.RACK_LABEL) : TopologyRequest.preferred(ClusterSpec.RACK_LABEL);
        return j.podSet(PodSet.of("workers", members, Resources.builder().cpu(16).memoryGiB(128).gpus(8).build()).withTopology(t)).build();
    }
}

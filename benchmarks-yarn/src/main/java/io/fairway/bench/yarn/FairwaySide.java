package io.fairway.bench.yarn;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Preempt;
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
import io.fairway.core.Clock;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.List;

/**
 * Fairway's side: one ClusterQueue per queue, all in one cohort, each with a nominal quota of an equal share of the
 * cluster and borrowing up to all of it; preemption {@code withinClusterQueue: LowerPriority},
 * {@code reclaimWithinCohort: Any}; the {@code fair-sharing} policy; every step is {@code runRound()} (snapshot,
 * round, applying decisions, events to a registered listener).
 */
public final class FairwaySide implements Side {
    private static final String FLAVOR = "default";
    private final Workload w;
    private Scheduler scheduler;
    private long clock;
    private long heard;
    /** The rounds the last {@link #preparePreemption()} ran to settle the cluster (the last decided nothing). */
    int settledRounds;
    /** The thread's CPU time of each {@link #fill()} and {@link #preempt()}, in ms, in order (warm-ups included). */
    final java.util.List<Double> fillCpuMillis = new java.util.ArrayList<>();
    final java.util.List<Double> preemptCpuMillis = new java.util.ArrayList<>();
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** @param w the workload */
    public FairwaySide(Workload w) {
        this.w = w;
    }

    @Override
    public String name() {
        return "Fairway";
    }

    @Override
    public void prepareFill() {
        scheduler = build();
        for (int q = 0; q < w.queues(); q++) {
            submit(q);
        }
    }

    @Override
    public Outcome fill() {
        long c0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        RoundResult r = scheduler.runRound();
        long nanos = System.nanoTime() - t0;
        fillCpuMillis.add((THREADS.getCurrentThreadCpuTime() - c0) / 1e6);
        long[] counts = count(r);
        return new Outcome(nanos, 1, counts[0], counts[1], counts[2]);
    }

    @Override
    public void preparePreemption() {
        scheduler = build();
        for (int q = 0; q < w.newcomer(); q++) {
            submit(q);
        }
        settledRounds = settle();
        clock += 10_000;
        submit(w.newcomer());
    }

    /**
     * Runs rounds until one decides nothing, as YARN's side sends heartbeats until a pass allocates nothing: the
     * cluster is settled, and the engine has caught up with what the rounds decided, before the newcomer arrives.
     *
     * @return the rounds run (the last decided nothing)
     */
    private int settle() {
        int rounds = 0;
        while (rounds < 10) {
            rounds++;
            clock += 1_000;
            if (scheduler.runRound().decisions().isEmpty()) {
                break;
            }
        }
        return rounds;
    }

    @Override
    public Outcome preempt() {
        long allocations = 0;
        long preemptions = 0;
        long newcomer = 0;
        int cycles = 0;
        long c0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        while (cycles < 10) {
            cycles++;
            RoundResult r = scheduler.runRound();
            long[] counts = count(r);
            allocations += counts[0];
            preemptions += counts[1];
            newcomer += counts[2];
            if (newcomer >= w.reclaimable() || counts[0] + counts[1] == 0) {
                break;
            }
            clock += 1_000;
        }
        long nanos = System.nanoTime() - t0;
        preemptCpuMillis.add((THREADS.getCurrentThreadCpuTime() - c0) / 1e6);
        return new Outcome(nanos, cycles, allocations, preemptions, newcomer);
    }

    @Override
    public Shape shape() {
        long containers = scheduler.jobs().all().stream().mapToLong(j -> j.spec().podSets().get(0).count()).sum();
        return new Shape(scheduler.snapshot().nodes().size(), scheduler.snapshot().clusterQueues().size(), containers);
    }

    @Override
    public void close() {
        scheduler = null;
    }

    /** @return events the listener heard (keeps the listener's work from being optimised away) */
    long heard() {
        return heard;
    }

    private long[] count(RoundResult r) {
        long admits = 0;
        long preempts = 0;
        long newcomer = 0;
        String newcomerPrefix = "q" + w.newcomer() + "-";
        for (Decision d : r.decisions()) {
            if (d instanceof Admit a) {
                admits++;
                if (a.jobId().startsWith(newcomerPrefix)) {
                    newcomer++;
                }
            } else if (d instanceof Preempt) {
                preempts++;
            }
        }
        return new long[] {admits, preempts, newcomer};
    }

    private void submit(int q) {
        List<JobSpec> batch = new ArrayList<>(w.jobsPerQueue());
        Resources one = Resources.builder().cpu(1).memoryGiB(w.memoryGiBPerJob()).build();
        for (int i = 0; i < w.jobsPerQueue(); i++) {
            batch.add(JobSpec.builder("q" + q + "-job-" + i).queue("lq-" + q).submitTimeMillis(clock)
                    .podSet(PodSet.of("main", 1, one)).build());
        }
        scheduler.submitAll(batch);
    }

    private Scheduler build() {
        clock = 0;
        Clock c = () -> clock;
        List<Node> nodes = new ArrayList<>(w.nodes());
        for (int i = 0; i < w.nodes(); i++) {
            nodes.add(Node.builder("node-" + i)
                    .capacity(Resources.builder().cpu(w.cpusPerNode()).memoryGiB(w.memoryGiBPerNode()).build())
                    .label(ClusterSpec.RACK_LABEL, "r" + i / 16).build());
        }
        Scheduler.Builder b = Scheduler.builder().policy("fair-sharing").clock(c).seed(1)
                .cluster(new ClusterSpec(Node.DEFAULT_CLUSTER, List.of(ClusterSpec.RACK_LABEL)))
                .flavor(ResourceFlavor.of(FLAVOR)).nodes(nodes).cohort(Cohort.of("all", null));
        PreemptionPolicy preemption = new PreemptionPolicy(PreemptionPolicy.WithinClusterQueue.LOWER_PRIORITY,
                PreemptionPolicy.ReclaimWithinCohort.ANY, PreemptionPolicy.BorrowWithinCohort.NEVER);
        long cpus = w.guaranteedPerQueue();
        for (int q = 0; q < w.queues(); q++) {
            b.clusterQueue(ClusterQueue.builder("cq-" + q).cohort("all").preemption(preemption)
                    .quota(FLAVOR, Resources.builder().cpu(cpus).memoryGiB(cpus * w.memoryGiBPerJob()).build()).build());
            b.localQueue(new LocalQueue(JobSpec.DEFAULT_NAMESPACE, "lq-" + q, "cq-" + q));
        }
        Scheduler s = b.build();
        s.addListener(e -> heard++);
        return s;
    }
}

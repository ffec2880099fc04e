package io.fairway.bench;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The heap the engine retains per pending job with realistic specs (whole-engine target 4 of docs/performance.md:
 * ≤ 1 KiB): a 30-character
 * id, a job set and an owner, two pod sets (a one-member launcher and a 4-member GPU worker set), each with a node
 * selector of 3 labels, priorities spread over 0-999 (so jobs fall into many groups). Every string a job carries is
 * its own object, as if each spec had been parsed from a request (nothing shared or interned by the driver). The
 * figure is used heap after full GCs, after minus before the specs were built and submitted, per job: the specs
 * themselves are part of it.
 *
 * <p>Run: {@code java -Xms6g -Xmx6g -cp benchmarks/target/benchmarks.jar io.fairway.bench.HeapPerJob 500000}.
 */
public final class HeapPerJob {
    private HeapPerJob() {
    }

    /**
     * @param args optional: pending jobs; {@code shared} to share the label and name strings between jobs (as a
     *     driver that interns them would), else {@code own}; {@code rounds} to measure again after two rounds (what
     *     the engine remembers between rounds included)
     */
    public static void main(String[] args) {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
        shared = args.length > 1 && args[1].equals("shared");
        int queues = 100;
        Scheduler s = Workloads.scheduler(1_000, queues, "fair-sharing", new Workloads.ManualClock());
        long before = usedAfterGc();
        List<JobSpec> batch = new ArrayList<>(jobs);
        for (int i = 0; i < jobs; i++) {
            batch.add(job(i, queues));
        }
        s.submitAll(batch);
        batch = null;
        long after = usedAfterGc();
        String sample = job(0, queues).id();
        System.out.printf("pending=%d (ids of %d characters, 2 pod sets, 3 labels each, %d groups, strings %s) jdk=%s%n", jobs, sample.length(),
                s.snapshot().pendingIndex().groups().size(), shared ? "shared" : "one object per job", Runtime.version());
        System.out.printf("retained heap per pending job: %.0f B%n", (after - before) / (double) jobs);
        if (args.length > 2 && args[2].equals("rounds")) {
            // two rounds: the first admits what fits, the second remembers every waiting group's failed attempts
            s.runRound();
            s.runRound();
            long rounds = usedAfterGc();
            int waiting = s.snapshot().pending().size();
            System.out.printf("after two rounds: %d waiting; retained heap per job submitted, the rounds' memory included: %.0f B%n",
                    waiting, (rounds - before) / (double) jobs);
        }
    }

    /** A job of queue {@code i % queues} with realistic fields; every string its own object. */
    static JobSpec job(int i, int queues) {
        String id = fresh(String.format("train-llm-sweep-%014d", i));
        return JobSpec.builder(id).queue(fresh("lq-" + (i % queues))).jobSet(fresh("sweep-" + i / 100)).owner(fresh("alice"))
                .priority(new java.util.SplittableRandom(i).nextInt(1000))
                .podSet(PodSet.of(fresh("launcher"), 1, Resources.builder().cpu(2).memoryGiB(8).build()).withNodeSelector(labels()))
                .podSet(PodSet.of(fresh("workers"), 4, Resources.builder().cpu(16).memoryGiB(128).gpus(8).build())
                        .withNodeSelector(labels()))
                .build();
    }

    private static Map<String, String> labels() {
        return Map.of(fresh("gpu.example.com/class"), fresh("H100"), fresh("topology.example.com/zone"), fresh("zone-a"),
                fresh("team"), fresh("ml-platform"));
    }

    private static boolean shared;

    private static String fresh(String s) {
        return shared ? s.intern() : new String(s.toCharArray());
    }

    private static long usedAfterGc() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return m.getHeapMemoryUsage().getUsed();
    }
}

package io.fairway.policies.fifo;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PendingReason;
import io.fairway.api.spi.Attempt;
import io.fairway.api.spi.PolicyContext;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Tiresias' discrete two-dimensional least-attained-service (Gu et al., NSDI 2019). A job's attained service is
 * GPUs × executed time ({@link JobStatus#attainedGpuMillis()}); thresholds of attained GPU-seconds (by default 3250,
 * 7200 and 18000, those of the authors' simulator) cut the jobs into priority queues, the least served first; inside
 * a queue jobs go in submission order. A waiting job that does not fit preempts running jobs of strictly lower
 * queues (most served, youngest first) when that makes room. Starvation guard: a job that has waited {@code k} × its
 * executed time goes back to the top queue.
 *
 * <pre>{@code
 * SchedulingPolicy las = Policies.create("tiresias-las", Map.of("thresholds", "3250,7200,18000", "k", "2"));
 * }</pre>
 */
public final class TiresiasLasPolicy implements SchedulingPolicy {
    /** The authors' simulator's queue thresholds, in GPU-seconds. */
    public static final double[] DEFAULT_THRESHOLDS = {3250, 7200, 18000};

    private final String name;
    private final double[] thresholds;
    private final double k;

    /**
     * @param name the policy name
     * @param thresholds increasing attained-service thresholds in GPU-seconds; n thresholds make n + 1 queues
     * @param k the starvation factor: a job waiting k × its executed time is promoted to the top queue
     */
    public TiresiasLasPolicy(String name, double[] thresholds, double k) {
        for (int i = 0; i < thresholds.length; i++) {
            InvalidSpecException.check(thresholds[i] > 0 && (i == 0 || thresholds[i] > thresholds[i - 1]), "policy." + name + ".thresholds",
                    java.util.Arrays.toString(thresholds), "policy %s: thresholds must be positive and increasing", name);
        }
        InvalidSpecException.check(k > 0, "policy." + name + ".k", k, "policy %s: k must be > 0, was %s", name, k);
        this.name = name;
        this.thresholds = thresholds.clone();
        this.k = k;
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * @param j a job
     * @return its queue by attained service alone (0 = the top queue)
     */
    int queueOf(JobStatus j) {
        double attained = j.attainedGpuMillis() / 1000.0;
        int q = 0;
        while (q < thresholds.length && attained >= thresholds[q]) {
            q++;
        }
        return q;
    }

    /**
     * @param j a pending job
     * @param now the clock
     * @return its queue, 0 when the starvation guard promotes it
     */
    int effectiveQueue(JobStatus j, long now) {
        int q = queueOf(j);
        if (q > 0 && JobEstimates.waitedMillis(j, now) >= k * j.runningMillis()) {
            return 0;
        }
        return q;
    }

    @Override
    public void plan(PolicyContext ctx) {
        long now = ctx.now();
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(Comparator.comparingInt((JobStatus j) -> effectiveQueue(j, now))
                .thenComparing(JobOrder.SUBMISSION));
        // victims: lowest priority first (highest queue, then the youngest)
        List<JobStatus> victims = new ArrayList<>();
        for (JobStatus r : ctx.holding()) {
            if (r.admission() != null && r.spec().totalGpus() > 0) {
                victims.add(r);
            }
        }
        victims.sort(Comparator.comparingInt((JobStatus j) -> -queueOf(j)).thenComparing(JobOrder.SUBMISSION.reversed()));
        Set<String> preempted = new HashSet<>();
        if (!pending.isEmpty()) {
            wakeAtNextChange(ctx, pending, victims, now);
        }
        for (JobStatus p : pending) {
            Attempt a = OrderedPolicy.admit(ctx, p, false);
            if (a.admitted() || p.spec().totalGpus() == 0 || !roomWouldHelp(a.reason())) {
                continue;
            }
            int q = effectiveQueue(p, now);
            List<JobStatus> eligible = new ArrayList<>();
            long room = ctx.capacity().freeGpus();
            for (JobStatus v : victims) {
                if (!preempted.contains(v.id()) && queueOf(v) > q) {
                    eligible.add(v);
                    room += v.admission().placement().gpuCount();
                }
            }
            if (room < p.spec().totalGpus()) {
                continue;
            }
            for (JobStatus v : eligible) {
                ctx.preempt(v, String.format(Locale.ROOT, "Tiresias LAS: queue %d (%.0f GPU-s attained) yields to %s of queue %d",
                        queueOf(v), v.attainedGpuMillis() / 1000.0, p.id(), q));
                preempted.add(v.id());
                if (ctx.capacity().freeGpus() >= p.spec().totalGpus() && ctx.tryAdmit(p).admitted()) {
                    break;
                }
            }
        }
    }

    /**
     * Asks for a round when the queues next change by time alone, while jobs wait: a running job's attained service
     * reaching its queue's threshold (it is demoted, and a waiting job of a higher queue may take its GPUs), or a
     * waiting job's starvation guard promoting it to the top queue. Without it those changes would act only at the
     * next arrival or completion.
     */
    private void wakeAtNextChange(PolicyContext ctx, List<JobStatus> pending, List<JobStatus> running, long now) {
        // running: jobs holding GPUs
        long next = Long.MAX_VALUE;
        int top = Integer.MAX_VALUE; // the highest queue a waiting job is in: only jobs demoted below it can yield
        for (JobStatus p : pending) {
            top = Math.min(top, effectiveQueue(p, now));
        }
        for (JobStatus r : running) {
            int q = queueOf(r);
            int gpus = r.admission().placement().gpuCount();
            if (q >= top && q < thresholds.length && gpus > 0 && r.state() == io.fairway.api.job.JobState.RUNNING) {
                double left = thresholds[q] * 1000 - r.attainedGpuMillis();
                next = Math.min(next, now + Math.max(1, (long) Math.ceil(left / gpus)));
            }
        }
        for (JobStatus p : pending) {
            if (queueOf(p) > 0 && effectiveQueue(p, now) > 0) {
                long promoted = p.stateSinceMillis() + (long) Math.ceil(k * p.runningMillis());
                next = Math.min(next, Math.max(now + 1, promoted));
            }
        }
        if (next != Long.MAX_VALUE) {
            ctx.wakeAt(next);
        }
    }

    static boolean roomWouldHelp(PendingReason r) {
        if (r == null) {
            return false;
        }
        return switch (r.code()) {
            case INSUFFICIENT_CAPACITY, NO_FITTING_TOPOLOGY, QUOTA, POLICY_CHOSE_OTHERS -> true;
            default -> false;
        };
    }
}

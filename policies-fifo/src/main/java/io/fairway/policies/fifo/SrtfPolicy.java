package io.fairway.policies.fifo;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobOrder;
import io.fairway.api.job.JobStatus;
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
 * Shortest remaining (estimated) time first: a job-completion-time reference. A job's remaining time is its
 * {@code estimatedSeconds} less the work done (reported progress, else executed time × speed); jobs without an
 * estimate go last, in submission order. Jobs that do not fit are skipped.
 *
 * <p>With preemption on, a waiting job that does not fit may preempt running jobs (longest remaining first) whose
 * remaining time exceeds its own total by the factor {@code 1 + hysteresis}, provided that each victim has run at
 * least {@code minRunSeconds} in its current run and would lose no more work than the waiting job's total (the
 * work since its last checkpoint, or all of it): jobs of similar length never swap back and forth, and no long job
 * is thrown away for a short one.
 *
 * <pre>{@code
 * SchedulingPolicy srtf = Policies.create("srtf", Map.of("preempt", "true", "hysteresis", "0.5", "minRunSeconds", "60"));
 * }</pre>
 */
public final class SrtfPolicy implements SchedulingPolicy {
    private final String name;
    private final boolean preempt;
    private final double hysteresis;
    private final double minRunSeconds;

    /**
     * @param name the policy name
     * @param preempt whether waiting jobs may preempt running ones
     * @param hysteresis a victim's remaining time must exceed the waiting job's total × (1 + hysteresis)
     * @param minRunSeconds a victim must have run this long in its current run
     */
    public SrtfPolicy(String name, boolean preempt, double hysteresis, double minRunSeconds) {
        InvalidSpecException.check(hysteresis >= 0, "policy." + name + ".hysteresis", hysteresis, "policy %s: hysteresis must be >= 0", name);
        InvalidSpecException.check(minRunSeconds >= 0, "policy." + name + ".minRunSeconds", minRunSeconds,
                "policy %s: minRunSeconds must be >= 0", name);
        this.name = name;
        this.preempt = preempt;
        this.hysteresis = hysteresis;
        this.minRunSeconds = minRunSeconds;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void plan(PolicyContext ctx) {
        long now = ctx.now();
        List<JobStatus> pending = new ArrayList<>(ctx.pending());
        pending.sort(Comparator.comparingDouble((JobStatus j) -> JobEstimates.remainingSeconds(j, now))
                .thenComparing(JobOrder.SUBMISSION));
        List<JobStatus> victims = new ArrayList<>();
        if (preempt) {
            for (JobStatus r : ctx.holding()) {
                if (r.admission() != null && r.spec().totalGpus() > 0 && r.spec().estimatedSeconds() > 0) {
                    victims.add(r);
                }
            }
            victims.sort(Comparator.comparingDouble((JobStatus j) -> -JobEstimates.remainingSeconds(j, now)).thenComparing(JobOrder.SEQUENCE.reversed()));
        }
        Set<String> preempted = new HashSet<>();
        for (JobStatus p : pending) {
            Attempt a = OrderedPolicy.admit(ctx, p, false);
            if (a.admitted() || !preempt || p.spec().totalGpus() == 0 || p.spec().estimatedSeconds() <= 0
                    || !TiresiasLasPolicy.roomWouldHelp(a.reason())) {
                continue;
            }
            double total = p.spec().estimatedSeconds();
            List<JobStatus> eligible = new ArrayList<>();
            long room = ctx.capacity().freeGpus();
            for (JobStatus v : victims) {
                if (preempted.contains(v.id())) {
                    continue;
                }
                double runSeconds = Math.max(0, now - v.stateSinceMillis()) / 1000.0;
                if (JobEstimates.remainingSeconds(v, now) > total * (1 + hysteresis) && runSeconds >= minRunSeconds
                        && JobEstimates.lostIfPreempted(v, now) <= total) {
                    eligible.add(v);
                    room += v.admission().placement().gpuCount();
                }
            }
            if (room < p.spec().totalGpus()) {
                continue;
            }
            for (JobStatus v : eligible) {
                ctx.preempt(v, String.format(Locale.ROOT, "SRTF: %.0f s remaining yields to %s with %.0f s in total",
                        JobEstimates.remainingSeconds(v, now), p.id(), total));
                preempted.add(v.id());
                if (ctx.capacity().freeGpus() >= p.spec().totalGpus() && ctx.tryAdmit(p).admitted()) {
                    break;
                }
            }
        }
    }
}

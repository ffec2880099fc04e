package io.fairway.core.plan;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.Attempt;
import io.fairway.core.snapshot.Snapshot;
import io.fairway.core.admission.QuotaBook;
import io.fairway.core.placement.CapacityPlan;
import io.fairway.core.placement.Placer;
import io.fairway.core.preemption.SearchPlan;
import java.util.List;

/**
 * The round's plan as the preemption search reads and changes it: the tentative plan's undoable changes, and the
 * context's memoised admission ({@link PlanContext#tryAdmit(JobStatus)}) and fit check.
 */
final class PlanForSearch implements SearchPlan {
    private final PlanContext ctx;
    private final TentativePlan p;

    PlanForSearch(PlanContext ctx, TentativePlan p) {
        this.ctx = ctx;
        this.p = p;
    }

    @Override
    public Snapshot snapshot() {
        return p.snapshot;
    }

    @Override
    public QuotaBook quota() {
        return p.quota;
    }

    @Override
    public CapacityPlan capacity() {
        ctx.capacityRead(); // what a search reads decides how long its failure stands (RoundBounds)
        return p.cap;
    }

    @Override
    public List<Placer.Taken> held(String jobId) {
        return p.held(jobId);
    }

    @Override
    public boolean outOfPlan(String jobId) {
        return p.preempted.containsKey(jobId) || p.resized.containsKey(jobId);
    }

    @Override
    public String clusterQueueOf(JobStatus job) {
        return ctx.clusterQueueOf(job);
    }

    @Override
    public long state() {
        return p.state();
    }

    @Override
    public void restoreState(long earlier) {
        p.restoreState(earlier);
    }

    @Override
    public boolean preemptForSearch(JobStatus job, String reason) {
        return job.spec().preemptible() && p.preempt(job, reason);
    }

    @Override
    public void restore(String jobId) {
        p.restore(jobId);
    }

    @Override
    public boolean fits(JobStatus job) {
        return ctx.fits(job);
    }

    @Override
    public Attempt tryAdmit(JobStatus job) {
        return ctx.tryAdmit(job);
    }

    @Override
    public void unadmit(String jobId) {
        p.unadmit(jobId);
    }

    @Override
    public void explainPreemption(String jobId, String reason) {
        p.explainPreemption(jobId, reason);
    }
}

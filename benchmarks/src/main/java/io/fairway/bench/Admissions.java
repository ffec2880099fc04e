package io.fairway.bench;

import io.fairway.api.job.JobStatus;
import io.fairway.api.spi.PolicyContext;
import java.util.List;

/** What the admission benchmarks measure: one attempt per job, in order, on one plan. */
final class Admissions {
    private Admissions() {
    }

    /**
     * @param ctx a fresh plan
     * @param jobs the jobs, tried in order
     * @return how many the plan admitted
     */
    static int tryAdmitAll(PolicyContext ctx, List<JobStatus> jobs) {
        int admitted = 0;
        for (JobStatus j : jobs) {
            if (ctx.tryAdmit(j).admitted()) {
                admitted++;
            }
        }
        return admitted;
    }
}

package io.fairway.policies.themis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.MemberPlacement;
import io.fairway.api.decision.Placement;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.Locality;
import io.fairway.api.job.PendingReason;
import io.fairway.api.model.Resources;
import io.fairway.policies.themis.FinishTimeEstimator.AppView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** ρ estimates on cases computed by hand (docs/policies/themis.md walks through the same numbers). */
class FinishTimeEstimatorTest {
    static JobSpec spec(String id, String app, int gpus, double seconds, long submit) {
        return JobSpec.builder(id).queue("lq").jobSet(app).members(1, Resources.builder().gpus(gpus).build()).estimatedSeconds(seconds)
                .submitTimeMillis(submit).build();
    }

    static JobStatus pending(JobSpec s, long runningMillis, double progress) {
        return new JobStatus(s, JobState.PENDING, PendingReason.of(PendingReason.Code.NOT_YET_CONSIDERED, "x"), null, s.submitTimeMillis(),
                0, 1, 0, runningMillis, progress);
    }

    static JobStatus running(JobSpec s, long since, long runningMillis, double progress, double tf, int gpusHeld, long leaseExpiry) {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < gpusHeld; i++) {
            ids.add(i);
        }
        Placement p = new Placement(List.of(new MemberPlacement("main", 0, "n0", ids)), Locality.RACK, tf);
        Admit a = new Admit(s.id(), "cq", Map.of("main", "default"), Map.of("main", 1), p, since, leaseExpiry);
        return new JobStatus(s, JobState.RUNNING, null, a, since, 0, 2, 0, runningMillis, progress);
    }

    @Test
    void aWaitingAppsRhoGrowsWithItsWait() {
        // 16 GPUs, 2 apps → share 8; app a: one 4-GPU job of 1200 s submitted at 0, waiting at t = 600 s.
        // T_id = max(1200, 1200*4 / min(8, 4)) = 1200; T_sh = 600 + 4800 / 4 = 1800; ρ = 1.5.
        JobStatus a = pending(spec("a1", "a", 4, 1200, 0), 0, -1);
        JobStatus b = pending(spec("b1", "b", 4, 1200, 0), 0, -1);
        TreeMap<String, AppView> apps = FinishTimeEstimator.apps(List.of(a, b), 600_000, 16, ThemisPolicy.Estimate.PROGRESS, x -> true);
        assertThat(apps.get("a").idealSeconds()).isCloseTo(1200, within(1e-9));
        assertThat(apps.get("a").sharedSeconds()).isCloseTo(1800, within(1e-9));
        assertThat(apps.get("a").rho()).isCloseTo(1.5, within(1e-9));
        // later, still waiting: 1200 s waited → ρ = (1200 + 1200) / 1200 = 2
        apps = FinishTimeEstimator.apps(List.of(a, b), 1_200_000, 16, ThemisPolicy.Estimate.PROGRESS, x -> true);
        assertThat(apps.get("a").rho()).isCloseTo(2.0, within(1e-9));
    }

    @Test
    void withThePerJobTermAnAppIsAsBadlyOffAsItsWorstJob() {
        // 16 GPUs. App a runs a 4-GPU job of 10,000 s since t = 0 at full speed; its 1-GPU job of 60 s waits since 0.
        // App b waits with one 4-GPU job of 1,000 s. Now t = 600 s; 3 live jobs → a job's share 16/3 GPUs.
        JobStatus longJob = running(spec("a1", "a", 4, 10_000, 0), 0, 600_000, -1, 1.0, 4, 600_000);
        JobStatus shortJob = pending(spec("a2", "a", 1, 60, 0), 0, -1);
        JobStatus other = pending(spec("b1", "b", 4, 1000, 0), 0, -1);
        List<JobStatus> jobs = List.of(longJob, shortJob, other);
        // per app: share 8; a's T_id = max(10,000, (40,000 + 60) / 5) = 10,000; T_sh = 600 + (9,400 × 4 + 60) / 4 = 10,015
        AppView perApp = FinishTimeEstimator.apps(jobs, 600_000, 16, ThemisPolicy.Estimate.PROGRESS, x -> true, false).get("a");
        assertThat(perApp.rho()).isLessThan(1.01);
        // per job: the short job's T_id is its 60 s (1 GPU ≤ 16/3); waiting 600 s and running 60 s → ρ = 660 / 60 = 11
        AppView perJob = FinishTimeEstimator.apps(jobs, 600_000, 16, ThemisPolicy.Estimate.PROGRESS, x -> true, true).get("a");
        assertThat(perJob.rho()).isCloseTo(11.0, within(1e-9));
        assertThat(perJob.idealSeconds()).isEqualTo(perApp.idealSeconds());
        // valuing bundles: starting the short job now gives it (600 + 60) / 60 = 11; leaving it a lease (600 s) gives 21
        boolean[] runs = {true, true};
        double[] speeds = {1.0, 1.0};
        int shortAt = perJob.jobs().get(0).id().equals("a2") ? 0 : 1;
        assertThat(FinishTimeEstimator.rhoWith(perJob, runs, speeds, 600)).isCloseTo(11.0, within(1e-9));
        runs[shortAt] = false;
        assertThat(FinishTimeEstimator.rhoWith(perJob, runs, speeds, 600)).as("left waiting a lease: (600 + 600 + 60) / 60")
                .isCloseTo(21.0, within(1e-9));
    }

    @Test
    void aBigAppsIdealTimeIsItsWorkOnItsShare() {
        // 8 GPUs, 2 apps → share 4; app a: two 4-GPU jobs of 1000 s → T_id = max(1000, 8000 / 4) = 2000.
        JobStatus a1 = pending(spec("a1", "a", 4, 1000, 0), 0, -1);
        JobStatus a2 = pending(spec("a2", "a", 4, 1000, 0), 0, -1);
        JobStatus b = pending(spec("b1", "b", 1, 100, 0), 0, -1);
        AppView app = FinishTimeEstimator.apps(List.of(a1, a2, b), 0, 8, ThemisPolicy.Estimate.PROGRESS, x -> true).get("a");
        assertThat(app.idealSeconds()).isCloseTo(2000, within(1e-9));
        assertThat(app.rho()).isCloseTo(1.0, within(1e-9)); // nothing waited yet: T_sh = 8000 / 4
    }

    @Test
    void aRunningJobsRhoUsesItsProgressAndPlacement() {
        // 8 GPUs, 1 app; a 4-GPU job of 1000 s submitted at 0, started at 200 s on a placement of factor 0.5,
        // now t = 600 s: 400 s run at speed 0.5 → 20% done (elapsed estimate), 800 s of work left at speed 0.5
        // → T_sh = 600 + 1600 = 2200; T_id = 1000 → ρ = 2.2.
        JobSpec s = spec("a1", "a", 4, 1000, 0);
        JobStatus r = running(s, 200_000, 400_000, -1, 0.5, 4, Admit.NO_LEASE);
        AppView app = FinishTimeEstimator.apps(List.of(r), 600_000, 8, ThemisPolicy.Estimate.ELAPSED, x -> true).get("a");
        assertThat(app.sharedSeconds()).isCloseTo(2200, within(1e-9));
        assertThat(app.rho()).isCloseTo(2.2, within(1e-9));
        // with reported progress 0.3 at the start of this run: done = 0.3 + 400 * 0.5 / 1000 = 0.5 → 500 s left → T_sh = 1600
        JobStatus rp = running(s, 200_000, 400_000, 0.3, 0.5, 4, Admit.NO_LEASE);
        AppView p = FinishTimeEstimator.apps(List.of(rp), 600_000, 8, ThemisPolicy.Estimate.PROGRESS, x -> true).get("a");
        assertThat(p.sharedSeconds()).isCloseTo(1600, within(1e-9));
        // ELAPSED ignores the reported progress
        AppView e = FinishTimeEstimator.apps(List.of(rp), 600_000, 8, ThemisPolicy.Estimate.ELAPSED, x -> true).get("a");
        assertThat(e.sharedSeconds()).isCloseTo(2200, within(1e-9));
    }

    @Test
    void anElasticJobAtHalfSizeRunsAtHalfSpeed() {
        JobSpec s = JobSpec.builder("e").queue("lq").jobSet("e").podSet(io.fairway.api.job.PodSet.of("main", 4,
                Resources.builder().gpus(1).build()).withMinCount(1)).estimatedSeconds(1000).build();
        Placement p = new Placement(List.of(new MemberPlacement("main", 0, "n0", List.of(0)), new MemberPlacement("main", 1, "n0", List.of(1))),
                Locality.NODE, 1.0);
        Admit a = new Admit("e", "cq", Map.of("main", "default"), Map.of("main", 2), p, 0, Admit.NO_LEASE);
        JobStatus j = new JobStatus(s, JobState.RUNNING, null, a, 0, 0, 1, 0, 0, -1);
        assertThat(FinishTimeEstimator.speed(j)).isCloseTo(0.5, within(1e-12));
        // 4 GPUs, one app: T_sh = 0 + 1000 / 0.5 = 2000; T_id = 1000 → ρ = 2
        assertThat(FinishTimeEstimator.apps(List.of(j), 0, 4, ThemisPolicy.Estimate.PROGRESS, x -> true).get("e").rho()).isCloseTo(2, within(1e-9));
    }

    @Test
    void aLeaseValuationCountsLostWorkAndTheHorizon() {
        // 4 GPUs, 1 app; a 4-GPU job of 1000 s, running at full speed since 0, lease expired at t = 600 s; no checkpoints.
        JobSpec s = spec("a1", "a", 4, 1000, 0);
        JobStatus r = running(s, 0, 600_000, -1, 1.0, 4, 600_000);
        AppView app = FinishTimeEstimator.apps(List.of(r), 600_000, 4, ThemisPolicy.Estimate.PROGRESS, x -> true).get("a");
        assertThat(app.jobs().get(0).revocable()).isTrue();
        // kept for a 600 s lease: 400 s left, done within the lease → T = 600 + 400 = 1000
        assertThat(FinishTimeEstimator.sharedWith(app, Map.of("a1", 1.0), 600)).isCloseTo(1000, within(1e-9));
        // revoked: all 1000 s of work again, after waiting the lease: T = 600 + 600 + 4000 / 4 = 2200
        assertThat(FinishTimeEstimator.sharedWith(app, Map.of(), 600)).isCloseTo(2200, within(1e-9));
    }
}

package io.fairway.policies.themis;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * What Themis keeps from one round to the next ({@link FinishTimeEstimator.Kept}: each job's GPUs and speed while its
 * spec and admission stay, the apps' names in order while the apps stay) changes no decision: on random contended
 * histories (with and without checkpoints, per-job term on and off), a policy that keeps it and one that computes
 * every estimate afresh at every round make the same decisions, the same lease renewals and finish the same jobs at
 * the same times. The histories preempt and restart jobs on other placements (another speed), so a kept speed that
 * outlived its admission would show.
 */
class KeptEstimatesTest {
    @Property(tries = 15)
    void keptEstimatesDecideAsFreshOnes(@ForAll @LongRange(min = 1, max = 1_000_000) long seed, @ForAll @IntRange(min = 6, max = 24) int apps,
                                        @ForAll @IntRange(min = 1, max = 12) int spanHours, @ForAll boolean checkpoints,
                                        @ForAll boolean perJob) {
        MiniSim.assertDecideAlike(params -> new ThemisPolicy("themis", ThemisProvider.config(params), true),
                params -> new ThemisPolicy("themis", ThemisProvider.config(params), false), seed, apps, spanHours, checkpoints, perJob);
    }

    /**
     * A kept entry found by the job's position in the last round is the entry of the job's own spec: on random rounds
     * that reorder, drop, add and edit jobs (an edit is a new spec object of the same id), every job gets an entry made
     * for its very spec, with its GPUs, as a lookup by id afresh would give.
     */
    @Property(tries = 50)
    void keptEntriesByPositionAreTheJobsOwn(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        Random rnd = new Random(seed);
        List<JobStatus> pool = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            pool.add(JobStatus.submitted(spec("job-" + i, rnd), null, 0, i));
        }
        FinishTimeEstimator.Kept kept = new FinishTimeEstimator.Kept();
        for (int round = 0; round < 30; round++) {
            for (int e = rnd.nextInt(4); e > 0; e--) { // edits: the same id, another spec object (maybe another size)
                int i = rnd.nextInt(pool.size());
                pool.set(i, pool.get(i).withSpec(spec(pool.get(i).id(), rnd)));
            }
            List<JobStatus> live = new ArrayList<>(pool);
            if (rnd.nextBoolean()) {
                Collections.shuffle(live, rnd);
            } else if (!live.isEmpty()) {
                Collections.rotate(live, rnd.nextInt(3)); // mostly the same positions, shifted by an arrival
            }
            live = live.subList(0, live.size() - rnd.nextInt(Math.min(8, live.size())));
            kept.beginRound(live.size());
            for (int x = 0; x < live.size(); x++) {
                JobStatus j = live.get(x);
                FinishTimeEstimator.Kept.Job k = kept.job(j, x);
                org.assertj.core.api.Assertions.assertThat(k.spec).isSameAs(j.spec());
                org.assertj.core.api.Assertions.assertThat(k.gpus).isEqualTo(j.spec().totalGpus());
            }
            kept.endRound();
        }
    }

    /**
     * Apps grouped by their kept indexes (the names merged with the arrivals when apps come and go) are the apps
     * grouped afresh: on random rounds whose jobs join, leave, change app (an edit) and change order, with apps of one
     * and of many jobs, the estimate with what was kept lists the same apps in the same order, each with the same jobs
     * in the same order and the same numbers, as the estimate made from nothing.
     */
    @Property(tries = 60)
    void appsGroupedByKeptIndexesAreTheAppsGroupedAfresh(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        Random rnd = new Random(seed);
        int appNames = 1 + rnd.nextInt(12);
        List<JobStatus> pool = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            pool.add(JobStatus.submitted(spec("job-" + i, "app-" + rnd.nextInt(appNames), rnd), null, 1_000L * i, i));
        }
        FinishTimeEstimator.Kept kept = new FinishTimeEstimator.Kept();
        int fastRounds = 0;
        for (int round = 0; round < 40; round++) {
            if (rnd.nextInt(4) == 0) { // an edit, sometimes into another app
                int i = rnd.nextInt(pool.size());
                pool.set(i, pool.get(i).withSpec(spec(pool.get(i).id(), "app-" + rnd.nextInt(appNames), rnd)));
            }
            List<JobStatus> live = new ArrayList<>(pool);
            if (rnd.nextInt(3) == 0) {
                Collections.shuffle(live, rnd);
            }
            if (rnd.nextInt(3) == 0) {
                live.remove(rnd.nextInt(live.size())); // a job (and maybe its app) not live in this round
            }
            long now = 100_000L + 60_000L * round;
            java.util.LinkedHashMap<String, FinishTimeEstimator.AppView> fresh = FinishTimeEstimator.appsInOrder(live, now, 64,
                    ThemisPolicy.Estimate.ELAPSED, j -> false, round % 2 == 0, null, null);
            String[] before = kept.names;
            java.util.LinkedHashMap<String, FinishTimeEstimator.AppView> withKept = FinishTimeEstimator.appsInOrder(live, now, 64,
                    ThemisPolicy.Estimate.ELAPSED, j -> false, round % 2 == 0, null, kept);
            if (kept.names == before) {
                fastRounds++;
            }
            org.assertj.core.api.Assertions.assertThat(withKept.keySet()).containsExactlyElementsOf(fresh.keySet());
            for (String app : fresh.keySet()) {
                FinishTimeEstimator.AppView a = fresh.get(app);
                FinishTimeEstimator.AppView b = withKept.get(app);
                org.assertj.core.api.Assertions.assertThat(b.jobs().stream().map(FinishTimeEstimator.JobView::id).toList())
                        .containsExactlyElementsOf(a.jobs().stream().map(FinishTimeEstimator.JobView::id).toList());
                org.assertj.core.api.Assertions.assertThat(b.rho()).isEqualTo(a.rho());
                org.assertj.core.api.Assertions.assertThat(b.sharedSeconds()).isEqualTo(a.sharedSeconds());
                org.assertj.core.api.Assertions.assertThat(b.idealSeconds()).isEqualTo(a.idealSeconds());
            }
        }
        org.assertj.core.api.Assertions.assertThat(fastRounds).as("rounds whose apps were the last round's (the names kept as they were)").isPositive();
    }

    /**
     * The largest node a round has seen (one more than the highest GPU index a holding job uses), read from the kept
     * entries as the estimates are made, is what a scan of the holding jobs' placements gives: on random rounds whose
     * jobs start, move to other GPUs, stop holding and wait again.
     */
    @Property(tries = 60)
    void theHighestGpuKeptIsTheHighestGpuHeld(@ForAll @LongRange(min = 1, max = 1_000_000) long seed) {
        Random rnd = new Random(seed);
        List<JobStatus> pool = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            pool.add(JobStatus.submitted(spec("job-" + i, "app-" + rnd.nextInt(5), rnd), null, 1_000L * i, i));
        }
        FinishTimeEstimator.Kept kept = new FinishTimeEstimator.Kept();
        for (int round = 0; round < 30; round++) {
            for (int e = rnd.nextInt(5); e > 0; e--) { // a job starts on some GPUs, moves, or goes back to waiting
                int i = rnd.nextInt(pool.size());
                JobStatus j = pool.get(i);
                pool.set(i, rnd.nextInt(3) == 0 ? JobStatus.submitted(j.spec(), null, j.spec().submitTimeMillis(), j.sequence())
                        : holding(j, rnd));
            }
            List<JobStatus> live = new ArrayList<>(pool);
            Collections.shuffle(live, rnd);
            int scan = 0;
            for (JobStatus j : live) {
                if (j.admission() != null && j.spec().totalGpus() > 0) {
                    for (io.fairway.api.decision.MemberPlacement m : j.admission().placement().members()) {
                        for (int g : m.gpus()) {
                            scan = Math.max(scan, g + 1);
                        }
                    }
                }
            }
            FinishTimeEstimator.appsInOrder(live, 100_000L + 60_000L * round, 64, ThemisPolicy.Estimate.ELAPSED, j -> false, false, null, kept);
            org.assertj.core.api.Assertions.assertThat(kept.heldHighestGpuPlusOne).as("round %d", round).isEqualTo(scan);
        }
    }

    private static JobStatus holding(JobStatus j, Random rnd) {
        List<io.fairway.api.decision.MemberPlacement> members = new ArrayList<>();
        int n = 1 + rnd.nextInt(2);
        for (int m = 0; m < n; m++) {
            int first = rnd.nextInt(12);
            members.add(new io.fairway.api.decision.MemberPlacement("main", m, "n" + m, List.of(first, first + rnd.nextInt(3))));
        }
        io.fairway.api.decision.Placement p = new io.fairway.api.decision.Placement(members, io.fairway.api.job.Locality.RACK, 1.0);
        io.fairway.api.decision.Admit a = new io.fairway.api.decision.Admit(j.id(), "cq", java.util.Map.of("main", "default"),
                java.util.Map.of("main", j.spec().podSets().get(0).count()), p, 50_000, 900_000);
        return new JobStatus(j.spec(), io.fairway.api.job.JobState.RUNNING, null, a, 50_000, 0, j.sequence(), 0, 0, -1);
    }

    private static JobSpec spec(String id, String app, Random rnd) {
        return JobSpec.builder(id).queue("lq").jobSet(app).podSet(PodSet.of("main", 1 + rnd.nextInt(4),
                Resources.builder().gpus(1 + rnd.nextInt(8)).build())).estimatedSeconds(600).build();
    }

    private static JobSpec spec(String id, Random rnd) {
        return JobSpec.builder(id).queue("lq").podSet(PodSet.of("main", 1 + rnd.nextInt(4), Resources.builder().gpus(1 + rnd.nextInt(8)).build()))
                .estimatedSeconds(600).build();
    }
}

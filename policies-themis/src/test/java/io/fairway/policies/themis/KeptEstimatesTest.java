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

    private static JobSpec spec(String id, Random rnd) {
        return JobSpec.builder(id).queue("lq").podSet(PodSet.of("main", 1 + rnd.nextInt(4), Resources.builder().gpus(1 + rnd.nextInt(8)).build()))
                .estimatedSeconds(600).build();
    }
}

package io.fairway.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobSpec;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Jobs parsed one by one carry their own copies of what they share (pod sets, node selectors, names); the engine
 * keeps one copy, and the jobs it reports are equal to what was submitted.
 */
class SharedSpecsTest {
    private static JobSpec parsed(String id) {
        // every string its own object, as a driver that parses each request would build it
        Map<String, String> selector = Map.of(new String("team".toCharArray()), new String("ml".toCharArray()));
        return JobSpec.builder(id).queue(new String(Fixtures.LQ.toCharArray())).owner(new String("alice".toCharArray()))
                .podSet(PodSet.of(new String("workers".toCharArray()), 2, Resources.builder().cpu(1).gpus(1).build()).withNodeSelector(selector))
                .build();
    }

    @Test
    void equalPodSetsAndNamesAreKeptOnceAndJobsStayEqualToWhatWasSubmitted() {
        Scheduler s = Fixtures.cluster("best-effort-fifo", 8, null, Fixtures.h100("n0")).build();
        JobSpec a = parsed("a");
        JobSpec b = parsed("b");
        s.submitAll(List.of(a, b));
        JobSpec keptA = s.status("a").orElseThrow().spec();
        JobSpec keptB = s.status("b").orElseThrow().spec();
        // equal to what was submitted, but for the submission time the engine stamps on a job submitted without one
        long now = s.status("a").orElseThrow().spec().submitTimeMillis();
        assertThat(keptA).isEqualTo(a.withSubmitTime(now));
        assertThat(keptB).isEqualTo(b.withSubmitTime(now));
        assertThat(keptB.podSets()).isSameAs(keptA.podSets());
        assertThat(keptB.owner()).isSameAs(keptA.owner());
        assertThat(keptB.queue()).isSameAs(keptA.queue());
        assertThat(keptB.jobSet()).isEqualTo("b"); // a job set of its own stays the job's id
        s.runRound(); // no node carries team=ml: both wait
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void jobsWithDifferentPodSetsInOneBatchKeepTheirOwnAndEqualOnesShareOne() {
        Scheduler s = Fixtures.cluster("best-effort-fifo", 8, null, Fixtures.h100("n0")).build();
        JobSpec a = parsed("a");
        JobSpec small = JobSpec.builder("small").queue(Fixtures.LQ).podSet(PodSet.of("workers", 1, Resources.builder().cpu(1).gpus(1).build()))
                .build();
        JobSpec b = parsed("b");
        JobSpec big = JobSpec.builder("big").queue(Fixtures.LQ).podSet(PodSet.of("workers", 4, Resources.builder().cpu(1).gpus(1).build()))
                .build();
        s.submitAll(List.of(a, small, b, big));
        s.submitAll(List.of(parsed("c"))); // a later batch, after a job with other pod sets
        for (JobSpec given : List.of(a, small, b, big)) {
            assertThat(s.status(given.id()).orElseThrow().spec().podSets()).as(given.id()).isEqualTo(given.podSets());
        }
        List<PodSet> keptA = s.status("a").orElseThrow().spec().podSets();
        assertThat(s.status("b").orElseThrow().spec().podSets()).isSameAs(keptA);
        assertThat(s.status("c").orElseThrow().spec().podSets()).isSameAs(keptA);
        assertThat(s.status("big").orElseThrow().spec().podSets()).isNotSameAs(s.status("small").orElseThrow().spec().podSets());
    }
}

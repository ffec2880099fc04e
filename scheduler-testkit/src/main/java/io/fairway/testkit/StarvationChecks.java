package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.Node;
import io.fairway.api.spi.SchedulingPolicy;
import io.fairway.testkit.ConformanceChecks.AdmissionBound;
import io.fairway.testkit.FairwayArbitraries.World;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The liveness checks behind {@link ConformanceChecks#noStarvation}, {@link ConformanceChecks#noStarvationDespiteFaults}
 * and {@link ConformanceChecks#noStarvationUnderContinuousArrival}: jobs are run to completion round by round and
 * every job must be admitted, and finish, within its bound.
 */
final class StarvationChecks {
    private StarvationChecks() {
    }

    /** See {@link ConformanceChecks#noStarvationDespiteFaults}. */
    static void despiteFaults(World world, List<FairwayArbitraries.JobTemplate> jobs, FaultSchedules.FaultSchedule faults,
                              Supplier<SchedulingPolicy> policy, int runRounds, int boundRounds) {
        ConformanceHarness h = new ConformanceHarness(world, policy, 7);
        h.apply(new FairwayArbitraries.SubmitBatch(jobs));
        Map<String, Integer> ranFor = new HashMap<>();
        java.util.function.Consumer<Object> check = step -> {
            ConformanceChecks.checkStates(h, step);
            ConformanceChecks.checkEffect(h, step);
        };
        int round = 0;
        for (; round < boundRounds && (round <= faults.lastRound()
                || !h.jobsIn(JobState.PENDING, JobState.QUOTA_RESERVED, JobState.ADMITTED, JobState.RUNNING).isEmpty()); round++) {
            if (!faults.faults().isEmpty()) {
                h.beforeRound(faults, check);
            }
            h.apply(new FairwayArbitraries.RunRound());
            check.accept("round " + round);
            for (JobStatus j : h.jobsIn(JobState.ADMITTED)) {
                h.scheduler.reportStarted(j.id());
            }
            for (JobStatus j : h.jobsIn(JobState.RUNNING)) {
                if (ranFor.merge(j.id(), 1, Integer::sum) >= runRounds) {
                    h.scheduler.reportFinished(j.id());
                }
            }
            if (!faults.faults().isEmpty()) {
                h.afterRound();
            }
            h.apply(new FairwayArbitraries.Tick(60));
        }
        assertThat(unfinished(h)).as("%d jobs that each fit the cluster alone, %d rounds%s: jobs starved", jobs.size(), boundRounds,
                faults.faults().isEmpty() ? "" : ", " + faults.faults().size() + " faults").isEmpty();
    }

    /** See {@link ConformanceChecks#noStarvationUnderContinuousArrival}. */
    static void underContinuousArrival(World world, ContinuousArrivals.Stream stream, Supplier<SchedulingPolicy> policy,
                                       AdmissionBound bound, int drainRounds) {
        ConformanceHarness h = new ConformanceHarness(world, policy, 7);
        long gpus = 0;
        for (Node n : world.nodes()) {
            gpus += n.gpus().size();
        }
        List<ContinuousArrivals.Arrival> arrivals = stream.arrivals();
        Map<String, ContinuousArrivals.Arrival> byId = new HashMap<>();
        Map<String, Integer> arrivedAt = new HashMap<>();
        Map<String, Integer> deadline = new HashMap<>();
        Map<String, Long> aheadOf = new HashMap<>();
        Map<String, Integer> admittedAt = new HashMap<>();
        Map<String, Integer> ranFor = new HashMap<>();
        int next = 0;
        int lastRound = stream.lastRound() + drainRounds;
        int round = 0;
        for (; round <= lastRound; round++) {
            List<FairwayArbitraries.JobTemplate> batch = new ArrayList<>();
            while (next < arrivals.size() && arrivals.get(next).round() == round) {
                batch.add(arrivals.get(next).job());
                next++;
            }
            if (!batch.isEmpty()) {
                int first = h.submitted.size();
                h.apply(new FairwayArbitraries.SubmitBatch(batch));
                for (int i = 0; i < batch.size(); i++) {
                    String id = h.submitted.get(first + i);
                    byId.put(id, arrivals.get(next - batch.size() + i));
                    arrivedAt.put(id, round);
                }
                long unfinished = 0;
                for (JobStatus j : h.jobsIn(JobState.PENDING, JobState.QUOTA_RESERVED, JobState.ADMITTED, JobState.RUNNING)) {
                    ContinuousArrivals.Arrival a = byId.get(j.id());
                    unfinished += a.gpus() * (a.runRounds() - ranFor.getOrDefault(j.id(), 0));
                }
                for (int i = 0; i < batch.size(); i++) {
                    String id = h.submitted.get(first + i);
                    ContinuousArrivals.Arrival own = byId.get(id);
                    long ahead = unfinished - own.gpus() * own.runRounds();
                    aheadOf.put(id, ahead);
                    deadline.put(id, round + bound.rounds(world.clusterQueues().size(), gpus, ahead, stream.maxRunRounds()));
                }
            } else if (next >= arrivals.size()
                    && h.jobsIn(JobState.PENDING, JobState.QUOTA_RESERVED, JobState.ADMITTED, JobState.RUNNING).isEmpty()) {
                break;
            }
            h.apply(new FairwayArbitraries.RunRound());
            ConformanceChecks.checkStates(h, "round " + round);
            ConformanceChecks.checkEffect(h, "round " + round);
            for (JobStatus j : h.jobsIn(JobState.ADMITTED)) {
                h.scheduler.reportStarted(j.id());
            }
            for (JobStatus j : h.jobsIn(JobState.RUNNING)) {
                admittedAt.putIfAbsent(j.id(), round);
                if (ranFor.merge(j.id(), 1, Integer::sum) >= byId.get(j.id()).runRounds()) {
                    h.scheduler.reportFinished(j.id());
                }
            }
            for (Map.Entry<String, Integer> e : deadline.entrySet()) {
                String id = e.getKey();
                if (!admittedAt.containsKey(id) && round >= e.getValue()) {
                    ContinuousArrivals.Arrival a = byId.get(id);
                    JobStatus j = h.scheduler.status(id).orElseThrow();
                    throw new AssertionError(String.format(java.util.Locale.ROOT,
                            "job %s starved: arrived before round %d (queue %s, %d GPUs, estimatedSeconds %.0f, %d GPU-rounds of work "
                                    + "in the cluster or ahead of it), still not admitted after round %d, the bound; %d jobs arrived "
                                    + "after it and %d of those were admitted meanwhile; it waits with %s",
                            id, arrivedAt.get(id), j.spec().queue(), a.gpus(), a.job().estimatedSeconds(), aheadOf.get(id), round,
                            countAfter(arrivedAt, arrivedAt.get(id)), countAdmittedAfter(arrivedAt, admittedAt, arrivedAt.get(id)),
                            j.pendingReason()));
                }
            }
            h.apply(new FairwayArbitraries.Tick(ContinuousArrivals.ROUND_SECONDS));
        }
        assertThat(unfinished(h)).as("%d jobs arriving over %d rounds, not all finished %d rounds after the last arrival",
                arrivals.size(), stream.lastRound() + 1, drainRounds).isEmpty();
    }

    /** @return every job that has not succeeded, with its state and pending reason */
    private static List<String> unfinished(ConformanceHarness h) {
        List<String> unfinished = new ArrayList<>();
        for (JobStatus j : h.scheduler.jobs().all()) {
            if (j.state() != JobState.SUCCEEDED) {
                unfinished.add(j.id() + " " + j.state() + (j.pendingReason() == null ? "" : " (" + j.pendingReason() + ")"));
            }
        }
        return unfinished;
    }

    private static int countAfter(Map<String, Integer> arrivedAt, int round) {
        return (int) arrivedAt.values().stream().filter(r -> r > round).count();
    }

    private static int countAdmittedAfter(Map<String, Integer> arrivedAt, Map<String, Integer> admittedAt, int round) {
        return (int) arrivedAt.entrySet().stream().filter(e -> e.getValue() > round && admittedAt.containsKey(e.getKey())).count();
    }
}

package io.fairway.testkit;

import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.core.Scheduler;
import io.fairway.testkit.ConformanceHarness.Effect;
import io.fairway.testkit.FaultSchedules.ActuatorFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The actuator's failures the {@link ConformanceHarness} injects through the scheduler's reports: a job that could not
 * be started, a job evicted, a stale report about an earlier run; each with the {@link Effect} it must have had.
 */
final class ActuatorFaultInjector {
    private ActuatorFaultInjector() {
    }

    /**
     * Injects an actuator failure other than {@link FaultSchedules.ActuatorFailureKind#THROWS} (which the harness's
     * actuator itself raises on the next round).
     *
     * @param scheduler the scheduler under test
     * @param f the failure
     * @return what it must have done, or null when it found no job to strike
     */
    static Effect inject(Scheduler scheduler, ActuatorFailure f) {
        switch (f.kind()) {
            case FAILED_TO_START -> {
                JobStatus j = ConformanceHarness.pick(f.pick(), ConformanceHarness.jobsIn(scheduler, JobState.ADMITTED));
                if (j != null) {
                    boolean ok = scheduler.reportFailed(j.id(), scheduler.jobs().epoch(j.id()), "actuator: could not create the pods");
                    return new Effect("actuator failed to start " + j.id(), Set.of(j.id()), Set.of(), Map.of(), Set.of(),
                            ok ? List.of() : List.of("reportFailed(" + j.id() + ", current epoch) was refused"));
                }
            }
            case EVICTED -> {
                JobStatus j = ConformanceHarness.pick(f.pick(), ConformanceHarness.jobsIn(scheduler, JobState.RUNNING, JobState.ADMITTED));
                if (j != null) {
                    boolean ok = scheduler.reportEvicted(j.id(), "evicted by the kubelet");
                    return new Effect("actuator evicted " + j.id(), Set.of(), Set.of(j.id()), Map.of(), Set.of(),
                            ok ? List.of() : List.of("reportEvicted(" + j.id() + ") was refused"));
                }
            }
            case STALE_REPORT -> {
                List<JobStatus> moved = new ArrayList<>();
                for (JobStatus j : scheduler.jobs().all()) {
                    if (j.preemptions() > 0 && !j.state().isTerminal()) {
                        moved.add(j);
                    }
                }
                JobStatus picked = ConformanceHarness.pick(f.pick(), moved);
                if (picked != null) {
                    // status() rather than jobs(): a running job's attained service is brought up to date on read
                    JobStatus j = scheduler.status(picked.id()).orElseThrow();
                    long stale = scheduler.jobs().epoch(j.id()) - 1;
                    boolean accepted = j.state() == JobState.ADMITTED ? scheduler.reportStarted(j.id(), stale)
                            : scheduler.reportFinished(j.id(), stale);
                    JobStatus after = scheduler.status(j.id()).orElse(null);
                    List<String> problems = new ArrayList<>();
                    if (accepted) {
                        problems.add("a report about " + j.id() + "'s run of epoch " + stale + " was accepted; its epoch is " + (stale + 1));
                    }
                    if (!Objects.equals(after, j)) {
                        problems.add("a refused stale report changed " + j.id() + ": " + j + " -> " + after);
                    }
                    return new Effect("stale report about " + j.id(), Set.of(), Set.of(), Map.of(), Set.of(), problems);
                }
            }
            default -> throw new IllegalArgumentException("unknown actuator failure " + f.kind());
        }
        return null;
    }
}

package io.fairway.api.spi;

import java.util.List;

/**
 * Implemented by a {@link SchedulingPolicy} that can say how it judged fairness in its last round, for people to
 * read (the visibility API and UI show it). Reading it never changes what the policy decides: the policy keeps an
 * immutable copy of what it computed anyway, replaced at the end of each round it plans.
 */
public interface FairnessInsight {
    /**
     * One job as the policy saw it.
     *
     * @param id the job id
     * @param rho its own finish-time fairness ρ (time to finish with its current share ÷ time alone on a fair share
     *     of the cluster); 1 is fair, larger is worse off
     * @param gpus GPUs it asks for at full size
     * @param holding true when it holds resources
     * @param remainingSeconds the policy's estimate of its remaining run time at full speed
     */
    record Job(String id, double rho, long gpus, boolean holding, double remainingSeconds) {
    }

    /**
     * One application (a job set) as the policy saw it.
     *
     * @param name the app (job set)
     * @param rho the app's ρ (its finish-time fairness; larger is worse off)
     * @param sharedSeconds its estimated finish time with its current share, in seconds from its submission
     * @param idealSeconds its finish time alone on a fair share of the cluster (T_id)
     * @param bidding true when it took part in the last auction (it was among the worst-off apps with demand)
     * @param bidMinGpus the fewest GPUs of its bid (its smallest bundle), 0 when it did not bid
     * @param bidMaxGpus the most GPUs of its bid (its largest bundle), 0 when it did not bid
     * @param jobs its live jobs
     */
    record App(String name, double rho, double sharedSeconds, double idealSeconds, boolean bidding, long bidMinGpus, long bidMaxGpus,
               List<Job> jobs) {
        /** Copies the list. */
        public App {
            jobs = List.copyOf(jobs);
        }
    }

    /**
     * What the policy computed in one round.
     *
     * @param policy the policy's name
     * @param atMillis the scheduler clock at that round
     * @param apps every app with live jobs, worst ρ first
     */
    record Report(String policy, long atMillis, List<App> apps) {
        /** Copies the list. */
        public Report {
            apps = List.copyOf(apps);
        }
    }

    /** @return what the policy computed in its last planned round, or null before its first */
    Report lastReport();
}

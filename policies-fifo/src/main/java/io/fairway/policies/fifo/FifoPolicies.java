package io.fairway.policies.fifo;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.job.JobOrder;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Map;

/**
 * The queue-order and fair-sharing policies, each a {@link PolicyProvider} found by {@link java.util.ServiceLoader}:
 * <ul>
 *   <li>{@code fair-sharing}: Kueue fair sharing: the ClusterQueue with the lowest weighted dominant resource share goes next;</li>
 *   <li>{@code fair-share-over-time}: HTCondor/Armada: the queue with the lowest decayed usage × priority factor goes next;</li>
 *   <li>{@code strict-fifo}: submission order; the head of a ClusterQueue that does not fit blocks it;</li>
 *   <li>{@code best-effort-fifo}: submission order; jobs that do not fit are skipped;</li>
 *   <li>{@code priority}: higher priority first, FIFO within a priority; jobs that do not fit are skipped.</li>
 * </ul>
 */
public final class FifoPolicies {
    private FifoPolicies() {
    }

    static void noParameters(String policy, Map<String, String> parameters) {
        if (!parameters.isEmpty()) {
            String first = parameters.keySet().iterator().next();
            throw new InvalidSpecException("policy." + policy + "." + first, parameters.get(first),
                    "policy " + policy + " takes no parameters; got " + parameters.keySet());
        }
    }

    /** {@code strict-fifo}. */
    public static final class StrictFifo implements PolicyProvider {
        @Override
        public String name() {
            return "strict-fifo";
        }

        @Override
        public String description() {
            return "submission order; a ClusterQueue's head that does not fit blocks the jobs behind it (Kueue StrictFIFO)";
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            noParameters(name(), parameters);
            return new OrderedPolicy(name(), JobOrder.SUBMISSION, true);
        }
    }

    /** {@code best-effort-fifo}. */
    public static final class BestEffortFifo implements PolicyProvider {
        @Override
        public String name() {
            return "best-effort-fifo";
        }

        @Override
        public String description() {
            return "submission order; jobs that do not fit are skipped and younger ones may start (Kueue BestEffortFIFO)";
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            noParameters(name(), parameters);
            return new OrderedPolicy(name(), JobOrder.SUBMISSION, false);
        }
    }

    /** {@code priority}. */
    public static final class Priority implements PolicyProvider {
        @Override
        public String name() {
            return "priority";
        }

        @Override
        public String description() {
            return "higher priority first, FIFO within a priority; jobs that do not fit are skipped";
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            noParameters(name(), parameters);
            return new OrderedPolicy(name(), JobOrder.PRIORITY, false);
        }
    }

    /** {@code fair-sharing}. */
    public static final class FairSharing implements PolicyProvider {
        @Override
        public String name() {
            return "fair-sharing";
        }

        @Override
        public String description() {
            return "Kueue fair sharing: the ClusterQueue with the lowest dominant resource share / weight admits next";
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            noParameters(name(), parameters);
            return new FairSharePolicy(name(), FairSharePolicy.Mode.DOMINANT_RESOURCE_SHARE);
        }
    }

    /** {@code fair-share-over-time}. */
    public static final class FairShareOverTime implements PolicyProvider {
        @Override
        public String name() {
            return "fair-share-over-time";
        }

        @Override
        public String description() {
            return "HTCondor/Armada fair share: the queue with the lowest decayed usage x priority factor admits next";
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            noParameters(name(), parameters);
            return new FairSharePolicy(name(), FairSharePolicy.Mode.OVER_TIME);
        }
    }
}

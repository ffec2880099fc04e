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
 * The two fair-share policies take the parameters of {@link FairSharePolicy.Options}: {@code preemptToFairShare},
 * {@code fairSharePreemptionStrategies}, {@code protectedFractionOfFairShare}, {@code priorityFirst} and
 * {@code rankWithNextJob}; the others take none.
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

    /**
     * The options of the fair-share policies: {@code rankWithNextJob} (true/false), {@code priorityFirst} (true/false), {@code preemptToFairShare}
     * (true/false), {@code fairSharePreemptionStrategies} (Kueue's names, separated by {@code /}, tried in order) and
     * {@code protectedFractionOfFairShare} (a number >= 0). Any other parameter is refused.
     */
    static final java.util.Set<String> FAIR_SHARE_PARAMETERS = java.util.Set.of("rankWithNextJob", "priorityFirst", "preemptToFairShare",
            "fairSharePreemptionStrategies", "protectedFractionOfFairShare");

    static FairSharePolicy.Options fairShareOptions(String policy, Map<String, String> parameters) {
        java.util.Set<String> known = FAIR_SHARE_PARAMETERS;
        for (Map.Entry<String, String> e : parameters.entrySet()) {
            if (!known.contains(e.getKey())) {
                throw new InvalidSpecException("policy." + policy + "." + e.getKey(), e.getValue(),
                        "policy " + policy + " takes the parameters " + new java.util.TreeSet<>(known) + "; got " + e.getKey());
            }
        }
        boolean withNext = bool(policy, "rankWithNextJob", parameters.get("rankWithNextJob"));
        boolean priorityFirst = bool(policy, "priorityFirst", parameters.get("priorityFirst"));
        boolean preempt = bool(policy, "preemptToFairShare", parameters.get("preemptToFairShare"));
        java.util.List<FairSharePolicy.Strategy> strategies = new java.util.ArrayList<>();
        String given = parameters.get("fairSharePreemptionStrategies");
        if (given != null) {
            for (String s : given.split("[/,]")) {
                FairSharePolicy.Strategy st = FairSharePolicy.Strategy.ofKueueName(s);
                if (st == null || strategies.contains(st)) {
                    throw new InvalidSpecException("policy." + policy + ".fairSharePreemptionStrategies", given, "policy " + policy
                            + ": fairSharePreemptionStrategies lists LessThanOrEqualToFinalShare and LessThanInitialShare, separated"
                            + " by / (or , from Java), each at most once; got \"" + s.trim() + "\"");
                }
                strategies.add(st);
            }
        }
        double fraction = 1.0;
        String f = parameters.get("protectedFractionOfFairShare");
        if (f != null) {
            try {
                fraction = Double.parseDouble(f.trim());
            } catch (NumberFormatException e) {
                fraction = Double.NaN;
            }
            InvalidSpecException.check(fraction >= 0 && Double.isFinite(fraction), "policy." + policy + ".protectedFractionOfFairShare", f,
                    "policy %s: protectedFractionOfFairShare must be a number >= 0, was \"%s\"", policy, f);
        }
        return new FairSharePolicy.Options(withNext, priorityFirst, preempt, strategies, fraction);
    }

    private static boolean bool(String policy, String key, String value) {
        if (value == null) {
            return false;
        }
        String v = value.trim().toLowerCase(java.util.Locale.ROOT);
        InvalidSpecException.check(v.equals("true") || v.equals("false"), "policy." + policy + "." + key, value,
                "policy %s: %s must be true or false, was \"%s\"", policy, key, value);
        return v.equals("true");
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
            return new FairSharePolicy(name(), FairSharePolicy.Mode.DOMINANT_RESOURCE_SHARE, fairShareOptions(name(), parameters));
        }

        @Override
        public java.util.Set<String> parameters() {
            return FAIR_SHARE_PARAMETERS;
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
            return new FairSharePolicy(name(), FairSharePolicy.Mode.OVER_TIME, fairShareOptions(name(), parameters));
        }

        @Override
        public java.util.Set<String> parameters() {
            return FAIR_SHARE_PARAMETERS;
        }
    }
}

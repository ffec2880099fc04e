package io.fairway.policies.fifo;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The baselines Themis is measured against, each a {@link PolicyProvider} found by {@link java.util.ServiceLoader}:
 * <ul>
 *   <li>{@code tiresias-las}: Tiresias' discrete 2D least-attained-service ({@link TiresiasLasPolicy});
 *       parameters {@code thresholds} (GPU-seconds, separated by {@code ,} or {@code /}, default {@code 3250,7200,18000}) and {@code k}
 *       (starvation factor, default 2);</li>
 *   <li>{@code srtf}: shortest remaining estimated time first ({@link SrtfPolicy}); parameters {@code preempt}
 *       (default true), {@code hysteresis} (default 0.5), {@code minRunSeconds} (default 60);</li>
 *   <li>{@code isolated-share}: an equal share of the GPUs per app ({@link IsolatedSharePolicy}); parameter
 *       {@code workConserving} (default false).</li>
 * </ul>
 */
public final class ReferencePolicies {
    private ReferencePolicies() {
    }

    static void onlyKnown(String policy, Map<String, String> parameters, Set<String> known) {
        Set<String> unknown = new TreeSet<>(parameters.keySet());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            String first = unknown.iterator().next();
            throw new InvalidSpecException("policy." + policy + "." + first, parameters.get(first), "policy " + policy
                    + ": unknown parameter(s) " + unknown + "; known: " + new TreeSet<>(known));
        }
    }

    static double number(String policy, Map<String, String> p, String key, double dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidSpecException("policy." + policy + "." + key, v, "policy " + policy + ": " + key + " must be a number, was \"" + v + "\"");
        }
    }

    static boolean bool(String policy, Map<String, String> p, String key, boolean dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        String t = v.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("true") && !t.equals("false")) {
            throw new InvalidSpecException("policy." + policy + "." + key, v, "policy " + policy + ": " + key + " must be true or false, was \"" + v + "\"");
        }
        return Boolean.parseBoolean(t);
    }

    /** {@code tiresias-las}. */
    public static final class TiresiasLas implements PolicyProvider {
        @Override
        public String name() {
            return "tiresias-las";
        }

        @Override
        public String description() {
            return "Tiresias 2D-LAS: queues by attained GPU-seconds (3250/7200/18000), FIFO inside, lower queues preempted; starvation guard k=2";
        }

        @Override
        public Set<String> parameters() {
            return Set.of("thresholds", "k");
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            onlyKnown(name(), parameters, parameters());
            double[] th = TiresiasLasPolicy.DEFAULT_THRESHOLDS;
            String t = parameters.get("thresholds");
            if (t != null) {
                String[] parts = t.split("[,/]"); // "/" too, for command lines where "," separates parameters
                th = new double[parts.length];
                for (int i = 0; i < parts.length; i++) {
                    th[i] = number(name(), Map.of("thresholds", parts[i]), "thresholds", 0);
                }
            }
            return new TiresiasLasPolicy(name(), th, number(name(), parameters, "k", 2));
        }
    }

    /** {@code srtf}. */
    public static final class Srtf implements PolicyProvider {
        @Override
        public String name() {
            return "srtf";
        }

        @Override
        public String description() {
            return "shortest remaining estimated time first (a JCT reference); preempts much longer jobs, with a guard against thrashing";
        }

        @Override
        public Set<String> parameters() {
            return Set.of("preempt", "hysteresis", "minRunSeconds");
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            onlyKnown(name(), parameters, parameters());
            return new SrtfPolicy(name(), bool(name(), parameters, "preempt", true), number(name(), parameters, "hysteresis", 0.5),
                    number(name(), parameters, "minRunSeconds", 60));
        }
    }

    /** {@code isolated-share}. */
    public static final class IsolatedShare implements PolicyProvider {
        @Override
        public String name() {
            return "isolated-share";
        }

        @Override
        public String description() {
            return "every app (job set) an equal share of the GPUs (Gavel's isolated), the reference of Themis' T_id";
        }

        @Override
        public Set<String> parameters() {
            return Set.of("workConserving");
        }

        @Override
        public SchedulingPolicy create(Map<String, String> parameters) {
            onlyKnown(name(), parameters, parameters());
            return new IsolatedSharePolicy(name(), bool(name(), parameters, "workConserving", false));
        }
    }
}

package io.fairway.policies.themis;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code themis}: finish-time-fair auctions ({@link ThemisPolicy}). Parameters, all optional:
 * <ul>
 *   <li>{@code f} — the fairness knob in [0, 1]; the (1 − f) fraction of apps with the worst ρ bid (default 0: every app with
 *       demand bids; fairness then comes from the proportional-fair auction, the starvation guard and early revocation);</li>
 *   <li>{@code leaseMinutes} — lease length in minutes of the scheduler clock, or {@code infinite} (default 15);</li>
 *   <li>{@code hiddenPayments} — {@code true|false}: winners keep only the fraction c_i of their bundle (default true);</li>
 *   <li>{@code estimate} — {@code progress|elapsed}: how job progress is estimated (default progress);</li>
 *   <li>{@code starvationGuard} (formerly {@code reserve}, still accepted) — {@code true|false}: gather GPUs for the worst
 *       app's gang rather than starve it (default true);</li>
 *   <li>{@code method} — {@code auto|exact|greedy}: winner determination (default auto);</li>
 *   <li>{@code revokeWithoutCheckpoint} — {@code true|false}: jobs that do not checkpoint may be revoked too; a revocation
 *       restarts them from zero, and that loss counts in their app's ρ, so it happens only for an app whose ρ is worse
 *       even then (default true; false: their leases are always renewed, for users who forbid killing such jobs);</li>
 *   <li>{@code renewUnlessWorse} — {@code true|false}: revoke an expired lease only for an app whose ρ is worse than the
 *       holder's would be without it (default true);</li>
 *   <li>{@code earlyRevoke} — {@code true|false}: the starvation guard may revoke leases before they expire when
 *       waiting for their expiry would cost the worst app more ρ than the revocation costs the holders (default true);</li>
 *   <li>{@code guardAboveRho} (formerly {@code reserveAboveRho}, still accepted) — a number ≥ 0: the starvation guard acts only once the worst app's ρ has reached it
 *       (default 2; 0: always);</li>
 *   <li>{@code perJob} — {@code true|false}: an app's ρ is at least its worst job's (default true);</li>
 *   <li>{@code overdueFactor} — a number ≥ 0 or {@code infinite}: the bound on how long a job may be overtaken, in
 *       multiples of the cluster time of the work submitted before it (default 1.5);</li>
 *   <li>{@code worstJobFirst} — {@code true|false}: an app hands the GPUs it wins to its worst-off jobs first, its own expired
 *       leases included (default true);</li>
 *   <li>{@code worstJobAboveRho}, {@code overdueOwnRun} — see {@link ThemisPolicy.Config};</li>
 *   <li>{@code guardOverdue} (formerly {@code overdueReserve}, still accepted) — {@code true|false}: the starvation guard
 *       makes room for the oldest overdue job (default true).</li>
 * </ul>
 *
 * <pre>{@code
 * Scheduler s = Scheduler.builder().policy("themis", Map.of("f", "0.5", "leaseMinutes", "20")) ... .build();
 * }</pre>
 */
public final class ThemisProvider implements PolicyProvider {
    /**
     * Older spellings still accepted, by the name they stand for: the starvation guard's keys were named after the
     * reservation it makes.
     */
    public static final Map<String, String> OLD_NAMES = Map.of("reserve", "starvationGuard", "reserveAboveRho", "guardAboveRho",
            "overdueReserve", "guardOverdue");

    /** The parameter names accepted (with the older spellings of {@link #OLD_NAMES}). */
    public static final Set<String> PARAMETERS = Set.of("f", "leaseMinutes", "hiddenPayments", "estimate", "starvationGuard", "method",
            "revokeWithoutCheckpoint", "renewUnlessWorse", "earlyRevoke", "guardAboveRho", "perJob", "overdueFactor", "worstJobFirst",
            "worstJobAboveRho", "overdueOwnRun", "guardOverdue", "reserve", "reserveAboveRho", "overdueReserve");

    @Override
    public String name() {
        return "themis";
    }

    @Override
    public String description() {
        return "Themis: finish-time-fair partial allocation auctions among the (1-f) worst-rho apps, with leases (f=0, 15 min)";
    }

    @Override
    public Set<String> parameters() {
        return PARAMETERS;
    }

    @Override
    public SchedulingPolicy create(Map<String, String> parameters) {
        return new ThemisPolicy(name(), config(parameters == null ? Map.of() : parameters));
    }

    /**
     * @param p the parameters
     * @return the configuration they describe
     * @throws InvalidSpecException naming unknown parameters or the first invalid value
     */
    public static ThemisPolicy.Config config(Map<String, String> p) {
        Set<String> unknown = new TreeSet<>(p.keySet());
        unknown.removeAll(PARAMETERS);
        if (!unknown.isEmpty()) {
            String first = unknown.iterator().next();
            throw new InvalidSpecException("policy.themis." + first, p.get(first), "policy themis: unknown parameter(s) " + unknown
                    + "; known: " + new TreeSet<>(PARAMETERS));
        }
        Map<String, String> named = newNames(p);
        ThemisPolicy.Config d = ThemisPolicy.Config.DEFAULTS;
        return d.toBuilder()
                .f(number(named, "f", d.f()))
                .leaseMinutes(numberOrInfinite(named, "leaseMinutes", d.leaseMinutes()))
                .hiddenPayments(bool(named, "hiddenPayments", d.hiddenPayments()))
                .estimate(choice(named, "estimate", ThemisPolicy.Estimate.class, d.estimate()))
                .starvationGuard(bool(named, "starvationGuard", d.starvationGuard()))
                .method(choice(named, "method", PartialAllocationAuction.Method.class, d.method()))
                .revokeWithoutCheckpoint(bool(named, "revokeWithoutCheckpoint", d.revokeWithoutCheckpoint()))
                .renewUnlessWorse(bool(named, "renewUnlessWorse", d.renewUnlessWorse()))
                .earlyRevoke(bool(named, "earlyRevoke", d.earlyRevoke()))
                .guardAboveRho(atLeastZero(named, "guardAboveRho", number(named, "guardAboveRho", d.guardAboveRho())))
                .perJob(bool(named, "perJob", d.perJob()))
                .overdueFactor(numberOrInfinite(named, "overdueFactor", d.overdueFactor()))
                .worstJobFirst(bool(named, "worstJobFirst", d.worstJobFirst()))
                .worstJobAboveRho(number(named, "worstJobAboveRho", d.worstJobAboveRho()))
                .overdueOwnRun(number(named, "overdueOwnRun", d.overdueOwnRun()))
                .guardOverdue(bool(named, "guardOverdue", d.guardOverdue()))
                .build();
    }

    /**
     * The parameters under their current names; a value given under an older name keeps that name in error messages
     * (the key becomes {@code "new (old)"}, which {@link #given} reads back).
     *
     * @throws InvalidSpecException when a parameter is given under both its names
     */
    private static Map<String, String> newNames(Map<String, String> p) {
        Map<String, String> named = new HashMap<>(p);
        OLD_NAMES.forEach((old, current) -> {
            if (p.containsKey(old)) {
                if (p.containsKey(current)) {
                    throw new InvalidSpecException("policy.themis." + old, p.get(old), "policy themis: " + old + " is the older name of "
                            + current + "; give one of them, not both");
                }
                named.put(current, named.remove(old));
                named.put(ASKED_AS + current, old);
            }
        });
        return named;
    }

    /** Marks, in {@link #newNames}' map, the name a parameter was given under. */
    private static final String ASKED_AS = "as "; // no parameter name has a space, and unknown names were refused before

    /** @return the name the user gave a parameter under (its older name, when that was used) */
    private static String given(Map<String, String> p, String key) {
        return p.getOrDefault(ASKED_AS + key, key);
    }

    private static double atLeastZero(Map<String, String> p, String key, double x) {
        if (x < 0) {
            throw new InvalidSpecException("policy.themis." + given(p, key), p.get(key), "policy themis: " + given(p, key)
                    + " must be >= 0, was " + x);
        }
        return x;
    }

    /** A number, or {@code infinite} ({@code inf}, {@code never}). */
    private static double numberOrInfinite(Map<String, String> p, String key, double dflt) {
        String v = p.get(key);
        if (v != null) {
            String t = v.trim().toLowerCase(Locale.ROOT);
            if (t.equals("infinite") || t.equals("inf") || t.equals("never")) {
                return Double.POSITIVE_INFINITY;
            }
        }
        return number(p, key, dflt);
    }

    private static double number(Map<String, String> p, String key, double dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            double x = Double.parseDouble(v.trim());
            if (Double.isNaN(x)) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new InvalidSpecException("policy.themis." + given(p, key), v, "policy themis: " + given(p, key) + " must be a number, was \"" + v + "\"");
        }
    }

    private static boolean bool(Map<String, String> p, String key, boolean dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        String t = v.trim().toLowerCase(Locale.ROOT);
        if (t.equals("true") || t.equals("false")) {
            return Boolean.parseBoolean(t);
        }
        throw new InvalidSpecException("policy.themis." + given(p, key), v, "policy themis: " + given(p, key) + " must be true or false, was \"" + v + "\"");
    }

    private static <E extends Enum<E>> E choice(Map<String, String> p, String key, Class<E> type, E dflt) {
        String v = p.get(key);
        if (v == null) {
            return dflt;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(v.trim())) {
                return e;
            }
        }
        StringBuilder known = new StringBuilder();
        for (E e : type.getEnumConstants()) {
            known.append(known.length() == 0 ? "" : "|").append(e.name().toLowerCase(Locale.ROOT));
        }
        throw new InvalidSpecException("policy.themis." + given(p, key), v, "policy themis: " + given(p, key) + " must be " + known + ", was \"" + v + "\"");
    }
}

package io.fairway.policies.themis;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
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
 *   <li>{@code reserve} — {@code true|false}: gather GPUs for the worst app's gang rather than starve it (default true);</li>
 *   <li>{@code method} — {@code auto|exact|greedy}: winner determination (default auto);</li>
 *   <li>{@code revokeWithoutCheckpoint} — {@code true|false}: jobs that do not checkpoint may be revoked too; a revocation
 *       restarts them from zero, and that loss counts in their app's ρ, so it happens only for an app whose ρ is worse
 *       even then (default true; false: their leases are always renewed, for users who forbid killing such jobs);</li>
 *   <li>{@code renewUnlessWorse} — {@code true|false}: revoke an expired lease only for an app whose ρ is worse than the
 *       holder's would be without it (default true);</li>
 *   <li>{@code earlyRevoke} — {@code true|false}: the starvation guard may revoke leases before they expire when
 *       waiting for their expiry would cost the worst app more ρ than the revocation costs the holders (default true);</li>
 *   <li>{@code reserveAboveRho} — a number ≥ 0: the starvation guard acts only once the worst app's ρ has reached it
 *       (default 2; 0: always);</li>
 *   <li>{@code perJob} — {@code true|false}: an app's ρ is at least its worst job's (default true);</li>
 *   <li>{@code overdueFactor} — a number ≥ 0 or {@code infinite}: the bound on how long a job may be overtaken, in
 *       multiples of the cluster time of the work submitted before it (default 1.5);</li>
 *   <li>{@code worstJobFirst} — {@code true|false}: an app hands the GPUs it wins to its worst-off jobs first, its own expired
 *       leases included (default true).</li>
 * </ul>
 *
 * <pre>{@code
 * Scheduler s = Scheduler.builder().policy("themis", Map.of("f", "0.5", "leaseMinutes", "20")) ... .build();
 * }</pre>
 */
public final class ThemisProvider implements PolicyProvider {
    /** The parameter names accepted. */
    public static final Set<String> PARAMETERS = Set.of("f", "leaseMinutes", "hiddenPayments", "estimate", "reserve", "method", "revokeWithoutCheckpoint",
            "renewUnlessWorse", "earlyRevoke", "reserveAboveRho", "perJob", "overdueFactor", "worstJobFirst",
            "worstJobAboveRho", "overdueOwnRun", "overdueReserve");

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
        ThemisPolicy.Config d = ThemisPolicy.Config.DEFAULTS;
        double f = number(p, "f", d.f());
        double lease = d.leaseMinutes();
        String l = p.get("leaseMinutes");
        if (l != null) {
            String v = l.trim().toLowerCase(Locale.ROOT);
            lease = v.equals("infinite") || v.equals("inf") || v.equals("never") ? Double.POSITIVE_INFINITY : number(p, "leaseMinutes", lease);
        }
        boolean hidden = bool(p, "hiddenPayments", d.hiddenPayments());
        boolean reserve = bool(p, "reserve", d.reserve());
        ThemisPolicy.Estimate est = choice(p, "estimate", ThemisPolicy.Estimate.class, d.estimate());
        PartialAllocationAuction.Method method = choice(p, "method", PartialAllocationAuction.Method.class, d.method());
        boolean revokeAll = bool(p, "revokeWithoutCheckpoint", d.revokeWithoutCheckpoint());
        boolean renew = bool(p, "renewUnlessWorse", d.renewUnlessWorse());
        boolean early = bool(p, "earlyRevoke", d.earlyRevoke());
        double above = number(p, "reserveAboveRho", d.reserveAboveRho());
        boolean perJob = bool(p, "perJob", d.perJob());
        double overdue = d.overdueFactor();
        String o = p.get("overdueFactor");
        if (o != null) {
            String v = o.trim().toLowerCase(Locale.ROOT);
            overdue = v.equals("infinite") || v.equals("inf") || v.equals("never") ? Double.POSITIVE_INFINITY : number(p, "overdueFactor", overdue);
        }
        boolean worstJobFirst = bool(p, "worstJobFirst", d.worstJobFirst());
        double worstJobAboveRho = number(p, "worstJobAboveRho", d.worstJobAboveRho());
        double overdueOwnRun = number(p, "overdueOwnRun", d.overdueOwnRun());
        return new ThemisPolicy.Config(f, lease, hidden, est, reserve, method, revokeAll, renew, early, above, perJob, overdue, worstJobFirst,
                worstJobAboveRho, overdueOwnRun, bool(p, "overdueReserve", d.overdueReserve()));
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
            throw new InvalidSpecException("policy.themis." + key, v, "policy themis: " + key + " must be a number, was \"" + v + "\"");
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
        throw new InvalidSpecException("policy.themis." + key, v, "policy themis: " + key + " must be true or false, was \"" + v + "\"");
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
        throw new InvalidSpecException("policy.themis." + key, v, "policy themis: " + key + " must be " + known + ", was \"" + v + "\"");
    }
}

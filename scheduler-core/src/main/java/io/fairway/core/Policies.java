package io.fairway.core;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/**
 * Finds policies on the class path through {@link ServiceLoader}.
 *
 * <pre>{@code
 * SchedulingPolicy p = Policies.create("best-effort-fifo", Map.of());
 * Policies.available().keySet();   // [best-effort-fifo, priority, strict-fifo, ...]
 * }</pre>
 */
public final class Policies {
    private Policies() {
    }

    /** @return every provider found, by name */
    public static Map<String, PolicyProvider> available() {
        Map<String, PolicyProvider> m = new TreeMap<>();
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class, cl == null ? Policies.class.getClassLoader() : cl)) {
            m.putIfAbsent(p.name(), p);
        }
        if (m.isEmpty() && cl != Policies.class.getClassLoader()) {
            for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class, Policies.class.getClassLoader())) {
                m.putIfAbsent(p.name(), p);
            }
        }
        return m;
    }

    /**
     * @param name a policy name
     * @param parameters its configuration
     * @return a new policy
     * @throws InvalidSpecException naming the policy and listing the known ones when it is unknown; naming a parameter
     *     and listing the known ones when the provider declares its {@link PolicyProvider#parameters()} and the name is not
     *     among them; or as the provider refuses a parameter or value
     */
    public static SchedulingPolicy create(String name, Map<String, String> parameters) {
        Map<String, PolicyProvider> all = available();
        PolicyProvider p = all.get(name);
        if (p == null) {
            throw new InvalidSpecException("policy", name, "unknown policy \"" + name + "\"; known policies: " + String.join(", ", all.keySet()));
        }
        Map<String, String> given = parameters == null ? Map.of() : parameters;
        java.util.Set<String> known = p.parameters();
        if (known != null && !known.isEmpty() && !known.containsAll(given.keySet())) {
            java.util.Set<String> unknown = new java.util.TreeSet<>(given.keySet());
            unknown.removeAll(known);
            String first = unknown.iterator().next();
            throw new InvalidSpecException("policy." + name + "." + first, given.get(first), "policy " + name + ": unknown parameter(s) "
                    + unknown + "; known: " + new java.util.TreeSet<>(known));
        }
        return p.create(given);
    }
}

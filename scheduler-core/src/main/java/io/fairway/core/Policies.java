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
    /** The policies Fairway ships, by the artifact that holds them, for an error that can say which jar to add. */
    static final Map<String, String> BUILT_IN = builtIn();

    private Policies() {
    }

    private static Map<String, String> builtIn() {
        Map<String, String> m = new TreeMap<>();
        for (String fifo : java.util.List.of("strict-fifo", "best-effort-fifo", "priority", "fair-sharing",
                "fair-share-over-time", "tiresias-las", "srtf", "isolated-share")) {
            m.put(fifo, "io.fairway:policies-fifo");
        }
        m.put("themis", "io.fairway:policies-themis");
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * @param name the policy asked for
     * @param known the names found on the class path
     * @return why there is no such policy and, when it can tell, which jar to add
     */
    static String unknownPolicy(String name, java.util.Set<String> known) {
        String artifact = BUILT_IN.get(name);
        String found = known.isEmpty()
                ? "no policy jar is on the class path"
                : "known policies: " + String.join(", ", known);
        if (artifact != null) {
            return "policy \"" + name + "\" is in " + artifact + ", which is not on the class path: add that jar ("
                    + found + ")";
        }
        if (known.isEmpty()) {
            return "unknown policy \"" + name + "\"; " + found + ": add io.fairway:policies-fifo (" + String.join(", ",
                    BUILT_IN.entrySet().stream().filter(e -> e.getValue().endsWith("fifo")).map(Map.Entry::getKey).toList())
                    + "), io.fairway:policies-themis (themis), or a jar of your own that lists its provider in"
                    + " META-INF/services/" + PolicyProvider.class.getName();
        }
        return "unknown policy \"" + name + "\"; " + found;
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
            throw new InvalidSpecException("policy", name, unknownPolicy(name, all.keySet()));
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

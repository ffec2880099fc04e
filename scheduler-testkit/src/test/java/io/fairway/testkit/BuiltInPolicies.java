package io.fairway.testkit;

import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Map;
import java.util.ServiceLoader;

/** Finds a built-in policy on the test class path by name, as the core does. */
final class BuiltInPolicies {
    private BuiltInPolicies() {
    }

    /**
     * @param spec a policy name, or {@code name:key=value,key=value} with parameters
     * @return the policy
     */
    static SchedulingPolicy named(String spec) {
        int colon = spec.indexOf(':');
        String name = colon < 0 ? spec : spec.substring(0, colon);
        Map<String, String> parameters = new java.util.TreeMap<>();
        if (colon >= 0) {
            for (String kv : spec.substring(colon + 1).split(",")) {
                parameters.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class)) {
            if (p.name().equals(name)) {
                return p.create(parameters);
            }
        }
        throw new IllegalArgumentException("no policy named " + name + " on the class path");
    }
}

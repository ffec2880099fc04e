package io.fairway.testkit;

import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Map;
import java.util.ServiceLoader;

/** Finds a built-in policy on the test class path by name, as the core does. */
final class BuiltInPolicies {
    private BuiltInPolicies() {
    }

    static SchedulingPolicy named(String name) {
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class)) {
            if (p.name().equals(name)) {
                return p.create(Map.of());
            }
        }
        throw new IllegalArgumentException("no policy named " + name + " on the class path");
    }
}

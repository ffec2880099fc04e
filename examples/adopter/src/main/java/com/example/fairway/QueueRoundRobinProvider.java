package com.example.fairway;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.spi.PolicyProvider;
import io.fairway.api.spi.SchedulingPolicy;
import java.util.Map;

/**
 * Makes {@link QueueRoundRobinPolicy} available by name: listed in
 * {@code META-INF/services/io.fairway.api.spi.PolicyProvider}, it is what {@code Scheduler.builder().policy("queue-round-robin")}
 * and {@code ./fairway --policy-path … --policy queue-round-robin} find.
 */
public final class QueueRoundRobinProvider implements PolicyProvider {
    @Override
    public String name() {
        return QueueRoundRobinPolicy.NAME;
    }

    @Override
    public String description() {
        return "takes turns between ClusterQueues, oldest waiting job first (example third-party policy)";
    }

    @Override
    public SchedulingPolicy create(Map<String, String> parameters) {
        if (parameters != null && !parameters.isEmpty()) {
            String name = parameters.keySet().iterator().next();
            throw new InvalidSpecException("policy." + QueueRoundRobinPolicy.NAME + "." + name, parameters.get(name),
                    "policy " + QueueRoundRobinPolicy.NAME + " takes no parameters, was given " + name);
        }
        return new QueueRoundRobinPolicy();
    }
}

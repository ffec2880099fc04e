package io.fairway.sim;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.NodePool;
import java.util.Map;

/**
 * A node pool of the simulated cluster and how its spot capacity is interrupted.
 *
 * <pre>{@code
 * SimNodePool p = new SimNodePool(pool, Map.of("p3.8xlarge-spot", 0.05), 120);
 * }</pre>
 *
 * @param pool the pool the scheduler provisions from
 * @param interruptionsPerHour per spot instance type: the rate (per node-hour) of spot interruptions; a
 *     node's interruption time is drawn from an exponential distribution with this rate, from the seed
 * @param noticeSeconds how long before the interruption the notice comes (AWS: two minutes)
 */
public record SimNodePool(NodePool pool, Map<String, Double> interruptionsPerHour, double noticeSeconds) {
    /** The spot interruption notice AWS gives. */
    public static final double DEFAULT_NOTICE_SECONDS = 120;

    /** Validates: rates only for spot instance types of the pool, finite and &gt;= 0. */
    public SimNodePool {
        java.util.Objects.requireNonNull(pool, "pool");
        interruptionsPerHour = Map.copyOf(interruptionsPerHour == null ? Map.of() : interruptionsPerHour);
        for (Map.Entry<String, Double> e : interruptionsPerHour.entrySet()) {
            InstanceType t = pool.instanceType(e.getKey());
            InvalidSpecException.check(t != null, "nodePool[" + pool.name() + "].interruptionsPerHour", e.getKey(),
                    "node pool %s: no instance type %s", pool.name(), e.getKey());
            double r = e.getValue() == null ? -1 : e.getValue();
            InvalidSpecException.check(r >= 0 && Double.isFinite(r), "instanceType[" + e.getKey() + "].interruptionsPerHour", r,
                    "instance type %s: interruptionsPerHour must be >= 0, was %s", e.getKey(), r);
            InvalidSpecException.check(r == 0 || t.capacityType() == CapacityType.SPOT, "instanceType[" + e.getKey() + "].interruptionsPerHour",
                    r, "instance type %s: only spot capacity is interrupted; it is on-demand", e.getKey());
        }
        InvalidSpecException.check(noticeSeconds >= 0 && Double.isFinite(noticeSeconds), "nodePool[" + pool.name() + "].interruptionNoticeSeconds",
                noticeSeconds, "node pool %s: interruptionNoticeSeconds must be >= 0, was %s", pool.name(), noticeSeconds);
    }

    /**
     * @param instanceType an instance type of the pool
     * @return its interruption rate per node-hour (0 when never interrupted)
     */
    public double interruptionsPerHour(String instanceType) {
        return interruptionsPerHour.getOrDefault(instanceType, 0.0);
    }
}

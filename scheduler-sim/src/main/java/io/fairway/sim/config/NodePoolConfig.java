package io.fairway.sim.config;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.Resources;
import io.fairway.api.model.Taint;
import io.fairway.sim.SimNodePool;
import io.fairway.sim.config.ClusterConfig.TaintConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A node pool of a cluster, as read from YAML (Karpenter's NodePool):
 *
 * <pre>
 * nodePools:
 *   - name: gpu
 *     provisioningDelaySeconds: 90         # how long a requested node takes to come up (default 60)
 *     consolidationDelaySeconds: 300       # how long a node stays empty before it goes (default 300)
 *     interruptionNoticeSeconds: 120       # spot interruption notice (default 120)
 *     consolidation: WhenUnderutilized     # or WhenEmpty (default): also move checkpointing jobs off under-used nodes
 *     limits: {nvidia.com/gpu: "64", cpu: "1000"}
 *     labels: {flavor: gpu}
 *     taints: [{key: gpu, value: "true", effect: NoSchedule}]
 *     instanceTypes:
 *       - {name: p3.16xlarge, cpu: "64", memory: 488Gi, gpuShape: hybrid-cube-mesh-8, gpuModel: V100,
 *          pricePerHour: 24.48, capacityType: on-demand}
 *       - {name: p3.16xlarge-spot, cpu: "64", memory: 488Gi, gpuShape: hybrid-cube-mesh-8, gpuModel: V100,
 *          pricePerHour: 7.34, capacityType: spot, interruptionsPerHour: 0.05}
 * </pre>
 *
 * @param name the pool name
 * @param instanceTypes the instance types it may provision
 * @param limits the most its nodes may add up to (quantities); resources not named are unlimited
 * @param provisioningDelaySeconds seconds from a Provision decision to the nodes joining
 * @param consolidationDelaySeconds seconds a node stays empty before it is removed
 * @param interruptionNoticeSeconds seconds between a spot interruption notice and the interruption
 * @param labels labels of its nodes
 * @param taints taints of its nodes
 * @param consolidation Karpenter's consolidation policy: {@code WhenEmpty} (default) or {@code WhenUnderutilized}
 */
public record NodePoolConfig(String name, List<InstanceTypeConfig> instanceTypes, Map<String, String> limits,
                             @JsonAlias("provisioningDelay") Double provisioningDelaySeconds,
                             @JsonAlias("consolidationDelay") Double consolidationDelaySeconds,
                             Double interruptionNoticeSeconds, Map<String, String> labels, List<TaintConfig> taints,
                             String consolidation) implements Validated {
    /** Normalises; {@link #validate()} checks the rest. */
    public NodePoolConfig {
        Names.require("name", name);
        instanceTypes = Names.list("instanceTypes", instanceTypes);
        InvalidSpecException.check(!instanceTypes.isEmpty(), "instanceTypes", instanceTypes, "node pool %s: at least one instance type is required",
                name);
        limits = limits == null ? Map.of() : Map.copyOf(limits);
        provisioningDelaySeconds = provisioningDelaySeconds == null ? 60.0 : provisioningDelaySeconds;
        consolidationDelaySeconds = consolidationDelaySeconds == null ? 300.0 : consolidationDelaySeconds;
        interruptionNoticeSeconds = interruptionNoticeSeconds == null ? SimNodePool.DEFAULT_NOTICE_SECONDS : interruptionNoticeSeconds;
        checkSeconds(name, "provisioningDelaySeconds", provisioningDelaySeconds);
        checkSeconds(name, "consolidationDelaySeconds", consolidationDelaySeconds);
        checkSeconds(name, "interruptionNoticeSeconds", interruptionNoticeSeconds);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = Names.list("taints", taints);
        NodePool.Consolidation.parse("nodePools[" + name + "].consolidation", consolidation); // refuses an unknown one
    }

    private static void checkSeconds(String pool, String field, double v) {
        InvalidSpecException.check(v >= 0 && Double.isFinite(v), field, v, "node pool %s: %s must be >= 0, was %s", pool, field, v);
    }

    @Override
    public void validate() {
        toPool(null);
    }

    /**
     * @param cluster the cluster its nodes join
     * @return the pool with its spot interruption rates
     */
    public SimNodePool toPool(String cluster) {
        List<InstanceType> types = new ArrayList<>();
        Map<String, Double> rates = new LinkedHashMap<>();
        for (InstanceTypeConfig t : instanceTypes) {
            types.add(t.toInstanceType());
            if (t.interruptionsPerHour() > 0) {
                rates.put(t.name(), t.interruptionsPerHour());
            }
        }
        List<Taint> ts = new ArrayList<>();
        for (TaintConfig t : taints) {
            ts.add(new Taint(t.key(), t.value(), t.effect()));
        }
        NodePool p = new NodePool(name, cluster, types, Resources.parse(limits), Math.round(provisioningDelaySeconds * 1000),
                Math.round(consolidationDelaySeconds * 1000), labels, ts, NodePool.Consolidation.parse("nodePools[" + name + "].consolidation", consolidation));
        return new SimNodePool(p, rates, interruptionNoticeSeconds);
    }

    /**
     * An instance type.
     *
     * @param name its name
     * @param cpu CPU per instance (quantity)
     * @param memory memory per instance (quantity)
     * @param gpuShape GPU shape ({@code none} for a CPU machine)
     * @param gpuModel GPU product
     * @param pricePerHour price of an instance-hour
     * @param capacityType {@code spot} or {@code on-demand} (default)
     * @param interruptionsPerHour spot only: interruptions per node-hour (default 0)
     * @param resources extended resources per instance (quantities)
     */
    public record InstanceTypeConfig(String name, String cpu, String memory, String gpuShape, String gpuModel, Double pricePerHour,
                                     String capacityType, Double interruptionsPerHour, Map<String, String> resources) {
        /** Normalises. */
        public InstanceTypeConfig {
            Names.require("name", name);
            pricePerHour = pricePerHour == null ? 0.0 : pricePerHour;
            capacityType = capacityType == null || capacityType.isBlank() ? "on-demand" : capacityType.trim().toLowerCase(Locale.ROOT);
            InvalidSpecException.check(capacityType.equals("spot") || capacityType.equals("on-demand"), "capacityType", capacityType,
                    "instance type %s: capacityType must be spot or on-demand, was %s", name, capacityType);
            interruptionsPerHour = interruptionsPerHour == null ? 0.0 : interruptionsPerHour;
            InvalidSpecException.check(interruptionsPerHour >= 0 && Double.isFinite(interruptionsPerHour), "interruptionsPerHour",
                    interruptionsPerHour, "instance type %s: interruptionsPerHour must be >= 0, was %s", name, interruptionsPerHour);
            InvalidSpecException.check(interruptionsPerHour == 0 || capacityType.equals("spot"), "interruptionsPerHour", interruptionsPerHour,
                    "instance type %s: only spot capacity is interrupted (capacityType: spot)", name);
            resources = resources == null ? Map.of() : Map.copyOf(resources);
        }

        InstanceType toInstanceType() {
            Map<String, String> q = new LinkedHashMap<>(resources);
            if (cpu != null) {
                q.put(Resources.CPU, cpu);
            }
            if (memory != null) {
                q.put(Resources.MEMORY, memory);
            }
            return new InstanceType(name, Resources.parse(q), gpuShape, gpuModel, pricePerHour,
                    capacityType.equals("spot") ? CapacityType.SPOT : CapacityType.ON_DEMAND);
        }
    }
}

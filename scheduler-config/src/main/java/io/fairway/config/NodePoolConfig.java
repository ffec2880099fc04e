package io.fairway.config;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.CapacityType;
import io.fairway.api.model.InstanceType;
import io.fairway.api.model.NodePool;
import io.fairway.api.model.Resources;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A node pool, as Karpenter's NodePool: the instance types nodes may be provisioned of, limits, and how fast nodes come
 * and go. Its nodes carry its labels and taints. The simulator reads it from a cluster's {@code nodePools}, the
 * Kubernetes adapter from its configuration's {@code nodePools} (it claims nodes with Karpenter NodeClaims; the
 * interruption fields are the simulator's alone).
 *
 * <pre>
 * nodePools:
 *   - name: gpu                            # Kubernetes: the Karpenter NodePool (label karpenter.sh/nodepool)
 *     provisioningDelaySeconds: 90         # how long a requested node takes to come up (default 60)
 *     consolidationDelaySeconds: 300       # how long a node stays empty before it goes (default 300)
 *     interruptionNoticeSeconds: 120       # simulator: spot interruption notice (default 120)
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
 * @param instanceTypes the instance types it may provision (at least one)
 * @param limits the most its nodes may add up to (quantities); resources not named are unlimited
 * @param provisioningDelaySeconds seconds from a Provision decision to the nodes joining (default 60; alias
 *     {@code provisioningDelay})
 * @param consolidationDelaySeconds seconds a node stays empty before it is removed (default 300; alias
 *     {@code consolidationDelay})
 * @param interruptionNoticeSeconds simulator: seconds between a spot interruption notice and the interruption
 *     (default {@value #DEFAULT_INTERRUPTION_NOTICE_SECONDS})
 * @param labels labels of its nodes
 * @param taints taints of its nodes
 * @param consolidation Karpenter's consolidation policy: {@code WhenEmpty} (default) or {@code WhenUnderutilized}
 */
public record NodePoolConfig(String name, List<InstanceTypeConfig> instanceTypes, Map<String, String> limits,
                             @JsonAlias("provisioningDelay") Double provisioningDelaySeconds,
                             @JsonAlias("consolidationDelay") Double consolidationDelaySeconds,
                             Double interruptionNoticeSeconds, Map<String, String> labels, List<TaintConfig> taints,
                             String consolidation) implements Validated {
    /** The default spot interruption notice, in seconds (the simulator's). */
    public static final double DEFAULT_INTERRUPTION_NOTICE_SECONDS = 120;

    /** Defaults and validates; {@link #validate()} checks the rest. */
    public NodePoolConfig {
        Names.require("nodePools[].name", name);
        instanceTypes = Names.list("nodePools[" + name + "].instanceTypes", instanceTypes);
        InvalidSpecException.check(!instanceTypes.isEmpty(), "nodePools[" + name + "].instanceTypes", instanceTypes,
                "node pool %s: at least one instance type is required", name);
        limits = limits == null ? Map.of() : Map.copyOf(limits);
        provisioningDelaySeconds = provisioningDelaySeconds == null ? 60.0 : provisioningDelaySeconds;
        consolidationDelaySeconds = consolidationDelaySeconds == null ? 300.0 : consolidationDelaySeconds;
        interruptionNoticeSeconds = interruptionNoticeSeconds == null ? DEFAULT_INTERRUPTION_NOTICE_SECONDS : interruptionNoticeSeconds;
        checkSeconds(name, "provisioningDelaySeconds", provisioningDelaySeconds);
        checkSeconds(name, "consolidationDelaySeconds", consolidationDelaySeconds);
        checkSeconds(name, "interruptionNoticeSeconds", interruptionNoticeSeconds);
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        taints = Names.list("nodePools[" + name + "].taints", taints);
        NodePool.Consolidation.parse("nodePools[" + name + "].consolidation", consolidation); // refuses an unknown one
    }

    private static void checkSeconds(String pool, String field, double v) {
        InvalidSpecException.check(v >= 0 && Double.isFinite(v), "nodePools[" + pool + "]." + field, v, "node pool %s: %s must be >= 0, was %s",
                pool, field, v);
    }

    @Override
    public void validate() {
        toModel(null);
    }

    /**
     * @param cluster the cluster its nodes join, or null for none named
     * @return the api model
     */
    public NodePool toModel(String cluster) {
        return new NodePool(name, cluster, instanceTypes.stream().map(InstanceTypeConfig::toModel).toList(), Resources.parse(limits),
                Math.round(provisioningDelaySeconds * 1000), Math.round(consolidationDelaySeconds * 1000), labels,
                taints.stream().map(TaintConfig::toModel).toList(), NodePool.Consolidation.parse("nodePools[" + name + "].consolidation", consolidation));
    }

    /** @return spot interruptions per node-hour of each instance type that has any, in the order given (the simulator's) */
    public Map<String, Double> interruptionRates() {
        Map<String, Double> rates = new LinkedHashMap<>();
        for (InstanceTypeConfig t : instanceTypes) {
            if (t.interruptionsPerHour() > 0) {
                rates.put(t.name(), t.interruptionsPerHour());
            }
        }
        return rates;
    }

    /**
     * An instance type of a node pool: what one node of it offers (its allocatable resources).
     *
     * @param name the instance type (Kubernetes: the {@value NodePool#INSTANCE_TYPE_LABEL} label)
     * @param cpu CPU per node (quantity)
     * @param memory memory per node (quantity)
     * @param gpuShape the GPU shape ({@code nvswitch-8}, {@code pcie-4} …; {@code none} or omitted for a CPU machine)
     * @param gpuModel the GPU product
     * @param pricePerHour the price of a node-hour (default 0)
     * @param capacityType {@code spot} or {@code on-demand} (default)
     * @param interruptionsPerHour simulator, spot only: interruptions per node-hour (default 0)
     * @param resources other resources per node (quantities)
     */
    public record InstanceTypeConfig(String name, String cpu, String memory, String gpuShape, String gpuModel, Double pricePerHour,
                                     String capacityType, Double interruptionsPerHour, Map<String, String> resources) {
        /** Defaults and validates. */
        public InstanceTypeConfig {
            Names.require("instanceTypes[].name", name);
            pricePerHour = pricePerHour == null ? 0.0 : pricePerHour;
            capacityType = capacityType == null || capacityType.isBlank() ? "on-demand" : capacityType.trim().toLowerCase(Locale.ROOT);
            InvalidSpecException.check(capacityType.equals("spot") || capacityType.equals("on-demand"), "instanceTypes[" + name + "].capacityType",
                    capacityType, "instance type %s: capacityType must be spot or on-demand, was %s", name, capacityType);
            interruptionsPerHour = interruptionsPerHour == null ? 0.0 : interruptionsPerHour;
            InvalidSpecException.check(interruptionsPerHour >= 0 && Double.isFinite(interruptionsPerHour),
                    "instanceTypes[" + name + "].interruptionsPerHour", interruptionsPerHour,
                    "instance type %s: interruptionsPerHour must be >= 0, was %s", name, interruptionsPerHour);
            InvalidSpecException.check(interruptionsPerHour == 0 || capacityType.equals("spot"), "instanceTypes[" + name + "].interruptionsPerHour",
                    interruptionsPerHour, "instance type %s: only spot capacity is interrupted (capacityType: spot)", name);
            resources = resources == null ? Map.of() : Map.copyOf(resources);
        }

        /** @return the api model */
        public InstanceType toModel() {
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

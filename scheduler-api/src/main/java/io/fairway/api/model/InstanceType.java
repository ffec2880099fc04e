package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * A kind of machine a node pool can provision, as Karpenter's instance types.
 *
 * <pre>{@code
 * InstanceType p4d = new InstanceType("p4d.24xlarge", Resources.builder().cpu(96).memoryGiB(1152).build(),
 *     "nvswitch-8", "A100", 32.77, CapacityType.ON_DEMAND);
 * }</pre>
 *
 * @param name the instance type name
 * @param capacity allocatable cpu, memory and other resources, without GPUs
 * @param gpuShape the GPU shape ({@link GpuTopology#named} names, or {@code "none"} for a CPU machine)
 * @param gpuModel the GPU product
 * @param pricePerHour the price of one instance-hour
 * @param capacityType spot or on-demand
 */
public record InstanceType(String name, Resources capacity, String gpuShape, String gpuModel, double pricePerHour,
                           CapacityType capacityType) implements java.io.Serializable {
    /** Validates. */
    public InstanceType {
        InvalidSpecException.requireName("instanceType.name", name);
        capacity = capacity == null ? Resources.NONE : capacity;
        gpuShape = gpuShape == null || gpuShape.isBlank() ? "none" : gpuShape;
        gpuModel = gpuModel == null ? "" : gpuModel;
        InvalidSpecException.check(pricePerHour >= 0 && Double.isFinite(pricePerHour), "instanceType[" + name + "].pricePerHour", pricePerHour,
                "instance type %s: pricePerHour must be >= 0, was %s", name, pricePerHour);
        capacityType = capacityType == null ? CapacityType.ON_DEMAND : capacityType;
        if (!"none".equals(gpuShape)) {
            GpuTopology.named(gpuShape, gpuModel); // validates the shape name
        }
    }

    /** @return the GPUs of one instance */
    public GpuTopology gpus() {
        return "none".equals(gpuShape) ? GpuTopology.NONE : GpuTopology.named(gpuShape, gpuModel);
    }

    /** @return the whole capacity of one instance, GPUs included */
    public Resources totalCapacity() {
        int g = gpus().size();
        return g == 0 ? capacity : capacity.plus(Resources.of(Resources.GPU, g));
    }
}

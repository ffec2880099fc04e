package io.fairway.api.model;

import io.fairway.api.InvalidSpecException;

/**
 * One GPU of a node.
 *
 * @param index its index within the node (0-based, unique per node)
 * @param model the product name, e.g. {@code "H100-SXM"}
 */
public record Gpu(int index, String model) implements java.io.Serializable {
    /** Validates. */
    public Gpu {
        InvalidSpecException.check(index >= 0 && index < 64, "gpu.index", index, "gpu index must be in 0..63, was %d", index);
        model = model == null || model.isBlank() ? "gpu" : model;
    }
}

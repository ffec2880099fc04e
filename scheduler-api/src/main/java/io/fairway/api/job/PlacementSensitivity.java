package io.fairway.api.job;

import io.fairway.api.InvalidSpecException;
import java.util.Locale;
import java.util.Map;

/**
 * How much a job slows down when its GPUs are spread out: a throughput factor per {@link Locality}, relative
 * to all GPUs in one NVLink domain (Themis' placement sensitivity).
 *
 * <pre>{@code
 * PlacementSensitivity vgg = PlacementSensitivity.forModel("vgg16");  // 1.0 / 0.72 / 0.52
 * double speed = vgg.factor(Locality.RACK);                            // 0.72
 * }</pre>
 *
 * @param sameNode throughput factor on one node across NVLink domains (Themis "cross-slot")
 * @param sameRack throughput factor across nodes of one rack ("cross-machine")
 * @param crossRack throughput factor across racks
 */
public record PlacementSensitivity(double sameNode, double sameRack, double crossRack) implements java.io.Serializable {
    /** Insensitive to placement. */
    public static final PlacementSensitivity NONE = new PlacementSensitivity(1, 1, 1);

    private static final Map<String, PlacementSensitivity> MODELS = Map.ofEntries(
            Map.entry("vgg11", new PlacementSensitivity(1.0, 0.75, 0.56)),
            Map.entry("vgg16", new PlacementSensitivity(1.0, 0.72, 0.52)),
            Map.entry("vgg19", new PlacementSensitivity(1.0, 0.70, 0.50)),
            Map.entry("alexnet", new PlacementSensitivity(1.0, 0.80, 0.64)),
            Map.entry("googlenet", new PlacementSensitivity(1.0, 0.98, 0.96)),
            Map.entry("inception3", new PlacementSensitivity(1.0, 0.98, 0.96)),
            Map.entry("inception4", new PlacementSensitivity(1.0, 0.98, 0.96)),
            Map.entry("resnet50", new PlacementSensitivity(1.0, 0.98, 0.96)),
            Map.entry("resnet101", new PlacementSensitivity(1.0, 0.98, 0.96)),
            Map.entry("resnet152", new PlacementSensitivity(1.0, 0.98, 0.96)));

    /** Validates: factors in (0, 1] and not increasing as locality worsens. */
    public PlacementSensitivity {
        InvalidSpecException.check(sameNode > 0 && sameNode <= 1, "sensitivity.sameNode", sameNode, "sensitivity.sameNode must be in (0, 1], was %s", sameNode);
        InvalidSpecException.check(sameRack > 0 && sameRack <= sameNode, "sensitivity.sameRack", sameRack,
                "sensitivity.sameRack must be in (0, sameNode=%s], was %s", sameNode, sameRack);
        InvalidSpecException.check(crossRack > 0 && crossRack <= sameRack, "sensitivity.crossRack", crossRack,
                "sensitivity.crossRack must be in (0, sameRack=%s], was %s", sameRack, crossRack);
    }

    /**
     * The factors the Themis authors measured, by model name ({@code vgg11, vgg16, vgg19, alexnet, googlenet,
     * inception3, inception4, resnet50, resnet101, resnet152}).
     *
     * @param model the model name (case-insensitive)
     * @return its profile, or {@link #NONE} for an unknown model
     */
    public static PlacementSensitivity forModel(String model) {
        if (model == null) {
            return NONE;
        }
        return MODELS.getOrDefault(model.toLowerCase(Locale.ROOT), NONE);
    }

    /**
     * @param locality a locality
     * @return the throughput factor at that locality (1.0 within an NVLink domain)
     */
    public double factor(Locality locality) {
        switch (locality) {
            case NVLINK_DOMAIN: return 1.0;
            case NODE: return sameNode;
            case RACK: return sameRack;
            default: return crossRack;
        }
    }
}

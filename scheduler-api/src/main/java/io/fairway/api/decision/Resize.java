package io.fairway.api.decision;

import io.fairway.api.InvalidSpecException;

/**
 * Change the member count of an elastic job's pod set (UnifiedJob's {@code TargetReplicas}).
 *
 * @param jobId the job
 * @param podSet the pod set
 * @param targetCount the new member count, within minCount..count
 * @param placement the job's whole placement after the resize
 */
public record Resize(String jobId, String podSet, int targetCount, Placement placement) implements Decision {
    /** Validates. */
    public Resize {
        InvalidSpecException.requireName("resize.jobId", jobId);
        InvalidSpecException.check(targetCount > 0, "resize.targetCount", targetCount, "targetCount must be > 0, was %d", targetCount);
    }

    @Override
    public void applyTo(Handler handler) {
        handler.resize().accept(this);
    }
}

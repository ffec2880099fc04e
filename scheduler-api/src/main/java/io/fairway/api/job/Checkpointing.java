package io.fairway.api.job;

import io.fairway.api.InvalidSpecException;

/**
 * A job's checkpointing: preempting it loses at most the work since its last checkpoint.
 *
 * @param intervalSeconds seconds of progress between checkpoints
 * @param checkpointCostSeconds seconds a checkpoint takes
 * @param restoreCostSeconds seconds a restore takes when the job starts again
 */
public record Checkpointing(double intervalSeconds, double checkpointCostSeconds, double restoreCostSeconds) implements java.io.Serializable {
    /** Validates. */
    public Checkpointing {
        InvalidSpecException.check(intervalSeconds > 0 && Double.isFinite(intervalSeconds), "checkpointing.intervalSeconds", intervalSeconds,
                "checkpointing.intervalSeconds must be a finite number > 0, was %s", intervalSeconds);
        InvalidSpecException.check(checkpointCostSeconds >= 0 && Double.isFinite(checkpointCostSeconds), "checkpointing.checkpointCostSeconds",
                checkpointCostSeconds, "checkpointing.checkpointCostSeconds must be a finite number >= 0, was %s", checkpointCostSeconds);
        InvalidSpecException.check(restoreCostSeconds >= 0 && Double.isFinite(restoreCostSeconds), "checkpointing.restoreCostSeconds",
                restoreCostSeconds, "checkpointing.restoreCostSeconds must be a finite number >= 0, was %s", restoreCostSeconds);
    }
}

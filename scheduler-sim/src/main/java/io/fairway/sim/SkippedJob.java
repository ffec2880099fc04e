package io.fairway.sim;

/**
 * A job of the input that was not simulated.
 *
 * @param id the job id
 * @param gpus the GPUs it asks for
 * @param reason why it was skipped
 */
public record SkippedJob(String id, long gpus, String reason) {
}

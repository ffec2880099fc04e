package io.fairway.api.decision;

import io.fairway.api.InvalidSpecException;

/**
 * Stop an admitted or running job and send it back to pending. Its quota and capacity are released at once.
 *
 * @param jobId the job
 * @param reason why, for the job's owner
 * @param checkpoint true when the job checkpoints before stopping (it resumes from the checkpoint)
 * @param migration true when the job is expected to restart elsewhere right away (drain, consolidation, spot)
 */
public record Preempt(String jobId, String reason, boolean checkpoint, boolean migration) implements Decision {
    /** Validates. */
    public Preempt {
        InvalidSpecException.requireName("preempt.jobId", jobId);
        reason = reason == null ? "" : reason;
    }

    @Override
    public void applyTo(Handler handler) {
        handler.preempt().accept(this);
    }
}

package io.fairway.api.spi;

import io.fairway.api.decision.Admit;
import io.fairway.api.job.PendingReason;

/**
 * The outcome of {@link PolicyContext#tryAdmit}: admitted with an admission, or not with a reason.
 *
 * @param admitted true when the job was admitted in this round's plan
 * @param admission the admission (flavors and placement), when admitted
 * @param reason why not, when not admitted
 */
public record Attempt(boolean admitted, Admit admission, PendingReason reason) implements java.io.Serializable {
    /** @param admission the admission @return a success */
    public static Attempt success(Admit admission) {
        return new Attempt(true, admission, null);
    }

    /** @param reason why not @return a failure */
    public static Attempt failure(PendingReason reason) {
        return new Attempt(false, null, reason);
    }
}

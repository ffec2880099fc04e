package io.fairway.api.job;

import java.util.Map;

/**
 * Why a job is waiting: a code a program can act on, a sentence a user can read, and the numbers behind it.
 *
 * <p>Example: {@code QUOTA: needs 16 nvidia.com/gpu of flavor h100; ClusterQueue team-a has 4 unused, cohort
 * lends 8; 3 jobs ahead}, with details {@code {needed=16, unused=4, cohortLends=8}}.
 *
 * @param code the kind of reason
 * @param message a readable explanation with the numbers
 * @param details the numbers, by name
 */
public record PendingReason(Code code, String message, Map<String, Long> details) implements java.io.Serializable {
    /** Validates. */
    public PendingReason {
        code = code == null ? Code.NOT_YET_CONSIDERED : code;
        message = message == null ? code.name() : message;
        details = Map.copyOf(details == null ? Map.of() : details);
    }

    /**
     * @param code the code
     * @param message the message
     * @return a reason without numbers
     */
    public static PendingReason of(Code code, String message) {
        return new PendingReason(code, message, Map.of());
    }

    /** The kinds of pending reason. */
    public enum Code {
        /** Submitted since the last round. */
        NOT_YET_CONSIDERED,
        /** The LocalQueue does not exist (yet). */
        QUEUE_NOT_FOUND,
        /** The LocalQueue's ClusterQueue does not exist (yet). */
        CLUSTER_QUEUE_NOT_FOUND,
        /** The ClusterQueue is stopped (cordoned). */
        QUEUE_STOPPED,
        /** The ClusterQueue's namespaceSelector does not admit the LocalQueue's namespace. */
        NAMESPACE_NOT_ALLOWED,
        /** The job asks for a resource its ClusterQueue has no quota for. */
        RESOURCE_NOT_IN_QUOTA,
        /** Not enough quota (nominal plus what the cohort may lend) right now. */
        QUOTA,
        /** Quota is reserved; admission checks are running. */
        ADMISSION_CHECK,
        /** Quota would fit but no set of nodes can hold the gang right now. */
        INSUFFICIENT_CAPACITY,
        /** No set of nodes satisfies the gang's topology constraint right now. */
        NO_FITTING_TOPOLOGY,
        /** The gang is larger than any topology domain (or node) could ever hold. */
        GANG_LARGER_THAN_ANY_DOMAIN,
        /** Blocked behind the head of a StrictFIFO queue, or the policy chose other jobs. */
        POLICY_CHOSE_OTHERS,
        /** Its ClusterQueue or its cluster is absent. */
        CLUSTER_ABSENT,
        /** Waiting for nodes being provisioned. */
        WAITING_FOR_NODES,
        /** Preempted; waiting to run again. */
        PREEMPTED
    }
}

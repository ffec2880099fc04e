package io.fairway.api.job;

import java.util.Comparator;

/**
 * The orders in which the engine and the policies walk jobs, written once so that every queue, policy and
 * report agrees on who came first. Each is a total order on the jobs of one scheduler: the engine's
 * {@link JobStatus#sequence() sequence} is unique, so no two distinct jobs compare equal.
 *
 * <pre>{@code
 * List<JobStatus> waiting = new ArrayList<>(ctx.pending());
 * waiting.sort(JobOrder.SUBMISSION);                          // oldest first
 * victims.sort(JobOrder.SUBMISSION.reversed());               // newest first
 * ranked.sort(Comparator.comparingDouble(this::score).thenComparing(JobOrder.SEQUENCE)); // ties: first accepted
 * }</pre>
 */
public enum JobOrder implements Comparator<JobStatus> {
    /** Submission order: submit time (oldest first), then the order the scheduler accepted the jobs. */
    SUBMISSION {
        @Override
        public int compare(JobStatus a, JobStatus b) {
            int c = Long.compare(a.spec().submitTimeMillis(), b.spec().submitTimeMillis());
            return c != 0 ? c : Long.compare(a.sequence(), b.sequence());
        }
    },
    /**
     * Kueue's order within a ClusterQueue: priority (highest first), then {@link #SUBMISSION submission order}.
     */
    PRIORITY {
        @Override
        public int compare(JobStatus a, JobStatus b) {
            int c = Integer.compare(b.spec().priority(), a.spec().priority());
            return c != 0 ? c : SUBMISSION.compare(a, b);
        }
    },
    /** The order the scheduler accepted the jobs in ({@link JobStatus#sequence()}), the usual last tie-break. */
    SEQUENCE {
        @Override
        public int compare(JobStatus a, JobStatus b) {
            return Long.compare(a.sequence(), b.sequence());
        }
    }
}

package io.fairway.core;

import io.fairway.api.job.JobStatus;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The jobs holding resources by their sequence (the order the scheduler accepted them), kept as two sorted arrays: a
 * lookup is a binary search, a new holder or one that lets go shifts the arrays (a memory move), and listing them —
 * which every round does several times (its snapshot, the charges, the leases) — reads an array in order instead of
 * following a tree's links from entry to entry. Not thread-safe: the engine's lock guards it.
 */
final class HoldingJobs {
    private long[] sequences = new long[16];
    private JobStatus[] jobs = new JobStatus[16];
    private int size;
    private final Values values = new Values();

    /**
     * @param sequence a job's sequence
     * @return the holding job of that sequence, or null
     */
    JobStatus get(long sequence) {
        int i = Arrays.binarySearch(sequences, 0, size, sequence);
        return i >= 0 ? jobs[i] : null;
    }

    /**
     * Puts a holding job in its place by sequence, or replaces the one of that sequence.
     *
     * @param sequence its sequence
     * @param job its status
     * @return the status it replaced, or null
     */
    JobStatus put(long sequence, JobStatus job) {
        Objects.requireNonNull(job, "job");
        int i = Arrays.binarySearch(sequences, 0, size, sequence);
        if (i >= 0) {
            JobStatus old = jobs[i];
            jobs[i] = job;
            return old;
        }
        i = -i - 1;
        if (size == sequences.length) {
            int capacity = Math.max(16, size + (size >> 1));
            sequences = Arrays.copyOf(sequences, capacity);
            jobs = Arrays.copyOf(jobs, capacity);
        }
        System.arraycopy(sequences, i, sequences, i + 1, size - i);
        System.arraycopy(jobs, i, jobs, i + 1, size - i);
        sequences[i] = sequence;
        jobs[i] = job;
        size++;
        values.changed();
        return null;
    }

    /**
     * @param sequence a job's sequence
     * @return the holding job of that sequence, now removed, or null
     */
    JobStatus remove(long sequence) {
        int i = Arrays.binarySearch(sequences, 0, size, sequence);
        if (i < 0) {
            return null;
        }
        JobStatus old = jobs[i];
        System.arraycopy(sequences, i + 1, sequences, i, size - i - 1);
        System.arraycopy(jobs, i + 1, jobs, i, size - i - 1);
        jobs[--size] = null;
        values.changed();
        return old;
    }

    /** @return how many jobs hold resources */
    int size() {
        return size;
    }

    /**
     * @return the holding jobs in sequence order: a read-only view that follows this book (iterating it while a job
     *     starts or stops holding fails fast, as a changing tree's view would; a job's new status in its place does not)
     */
    List<JobStatus> values() {
        return values;
    }

    /** @return the holding jobs in sequence order, in an array of their own */
    JobStatus[] toArray() {
        return Arrays.copyOf(jobs, size);
    }

    /** The read-only view of {@link #values()}. */
    private final class Values extends AbstractList<JobStatus> implements RandomAccess {
        @Override
        public JobStatus get(int index) {
            Objects.checkIndex(index, size);
            return jobs[index];
        }

        @Override
        public int size() {
            return size;
        }

        void changed() {
            modCount++;
        }
    }
}

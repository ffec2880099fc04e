package io.fairway.core.snapshot;

import io.fairway.api.job.JobStatus;
import java.util.AbstractList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The jobs holding resources as a round sees them: each running job's service brought up to the round's clock
 * ({@link JobStatus#asOf}) when it is first read, not when the snapshot is taken. A round that only needs what the
 * jobs hold (their specs, admissions and states, which {@code asOf} does not change) reads them with
 * {@link #stored(List, int)} and copies none.
 *
 * <p>Immutable and safe to share between threads: each element is brought up to date at most once, and every
 * reader of an index gets the same object.
 */
public final class HeldJobs extends AbstractList<JobStatus> implements RandomAccess {
    private final Stored kept;
    private final JobStatus[] stored;
    private final long nowMillis;
    /** Each position's status brought up to date, made when some position is first read. */
    private volatile AtomicReferenceArray<JobStatus> current;

    /**
     * @param stored the holding jobs as the engine keeps them, in submission order (the array is not copied: the
     *     caller hands it over)
     * @param nowMillis the round's clock
     */
    public HeldJobs(JobStatus[] stored, long nowMillis) {
        this(new Stored(stored), nowMillis);
    }

    /**
     * @param kept the holding jobs as the engine keeps them, possibly handed to earlier snapshots too (while no
     *     holding job changed)
     * @param nowMillis the round's clock
     */
    public HeldJobs(Stored kept, long nowMillis) {
        this.kept = kept;
        this.stored = kept.jobs;
        this.nowMillis = nowMillis;
    }

    /**
     * The holding jobs as the engine keeps them, in submission order, shared by every snapshot taken while none of
     * them changes; what is derived from them alone (the jobs by id) is made once for all those snapshots.
     * Immutable and safe to share between threads.
     */
    public static final class Stored {
        private final JobStatus[] jobs;
        private volatile Map<String, JobStatus> byId;

        /**
         * @param jobs the holding jobs in submission order (not copied: the caller hands the array over and never
         *     writes to it again)
         */
        public Stored(JobStatus[] jobs) {
            this.jobs = jobs;
        }

        /** @return the jobs, in submission order (not to be written to) */
        public JobStatus[] jobs() {
            return jobs;
        }

        private Map<String, JobStatus> byId() {
            Map<String, JobStatus> m = byId;
            if (m == null) { // two threads may both make it: the same content either way
                Map<String, JobStatus> b = new HashMap<>((int) Math.min(1 << 30, jobs.length / 0.75 + 1));
                for (JobStatus j : jobs) {
                    b.put(j.id(), j);
                }
                m = Collections.unmodifiableMap(b);
                byId = m;
            }
            return m;
        }
    }

    /**
     * @param holding a snapshot's holding jobs
     * @return the jobs as the engine stores them, in submission order (not to be written to), or null when
     *     {@code holding} is not the engine's
     */
    public static JobStatus[] storedJobs(List<JobStatus> holding) {
        return holding instanceof HeldJobs h ? h.stored : null;
    }

    /**
     * @param holding a snapshot's holding jobs
     * @return the jobs by id, as {@link #stored(List, int)} gives them (for a job id listed twice, the later), or null
     *     when {@code holding} is not the engine's (the caller then indexes it itself)
     */
    public static Map<String, JobStatus> storedById(List<JobStatus> holding) {
        return holding instanceof HeldJobs h ? h.kept.byId() : null;
    }

    @Override
    public JobStatus get(int index) {
        AtomicReferenceArray<JobStatus> current = this.current;
        if (current == null) {
            synchronized (this) {
                if (this.current == null) {
                    this.current = new AtomicReferenceArray<>(stored.length);
                }
                current = this.current;
            }
        }
        JobStatus c = current.get(index);
        if (c != null) {
            return c;
        }
        JobStatus s = stored[index];
        if (s == null) {
            throw new NullPointerException("holding job " + index + " is null");
        }
        c = s.asOf(nowMillis);
        return current.compareAndSet(index, null, c) ? c : current.get(index);
    }

    @Override
    public int size() {
        return stored.length;
    }

    /**
     * A holding job as far as what it holds goes: the same spec, state, admission, sequence and state start as
     * {@code holding.get(index)}, without bringing its service up to date.
     *
     * @param holding a snapshot's holding jobs
     * @param index the position
     * @return the job at that position, its service possibly as of an earlier time
     */
    public static JobStatus stored(List<JobStatus> holding, int index) {
        return holding instanceof HeldJobs h ? h.stored[index] : holding.get(index);
    }

    /**
     * @param jobs holding jobs in submission order (ascending sequences)
     * @param from the first position to look at
     * @param sequence a submission sequence
     * @return the first position at or after {@code from} whose job's sequence is at least {@code sequence} (the
     *     array's length when none is)
     */
    public static int firstAtOrAfter(JobStatus[] jobs, int from, long sequence) {
        int lo = from;
        int hi = jobs.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (jobs[mid].sequence() < sequence) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * @param holding a snapshot's holding jobs
     * @param stored a job as {@link #stored(List, int)} gave it
     * @return that job as {@code holding.get} gives it (its service brought up to date)
     */
    public static JobStatus current(List<JobStatus> holding, JobStatus stored) {
        if (!(holding instanceof HeldJobs h)) {
            return stored;
        }
        int at = firstAtOrAfter(h.stored, 0, stored.sequence()); // in submission order: sequences ascend
        if (at < h.stored.length && h.stored[at] == stored) {
            return h.get(at);
        }
        for (int i = 0; i < h.stored.length; i++) {
            if (h.stored[i] == stored) {
                return h.get(i);
            }
        }
        throw new IllegalArgumentException("job " + stored.id() + " is not among these holding jobs");
    }
}

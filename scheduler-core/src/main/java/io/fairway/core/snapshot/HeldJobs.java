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
        /**
         * How many lookups by id a stored array answers by scanning its ids' hash codes before it indexes its jobs by
         * id: a round that asks about a few jobs (an admission's check that the job holds nothing) then reads one
         * array of ints instead of indexing every holding job, and a round that asks about many pays for one index.
         */
        static final int SCANS_BEFORE_INDEX = 64;

        private final JobStatus[] jobs;
        private volatile int[] idHashes;
        private volatile Map<String, JobStatus> byId;
        private int scans; // read and written racily: at worst a few more scans before the index

        /**
         * @param jobs the holding jobs in submission order (not copied: the caller hands the array over and never
         *     writes to it again)
         */
        public Stored(JobStatus[] jobs) {
            this.jobs = jobs;
        }

        /**
         * @param jobs the holding jobs in submission order (not copied: the caller hands the array over and never
         *     writes to it again)
         * @param idHashes each job's {@code id().hashCode()}, position by position (handed over likewise)
         * @throws NullPointerException when either is null
         * @throws IllegalArgumentException when the lengths differ
         */
        public Stored(JobStatus[] jobs, int[] idHashes) {
            java.util.Objects.requireNonNull(jobs, "jobs");
            java.util.Objects.requireNonNull(idHashes, "idHashes");
            if (idHashes.length != jobs.length) {
                throw new IllegalArgumentException("idHashes: " + idHashes.length + " hash codes for " + jobs.length + " jobs");
            }
            this.jobs = jobs;
            this.idHashes = idHashes;
        }

        /** @return the jobs, in submission order (not to be written to) */
        public JobStatus[] jobs() {
            return jobs;
        }

        /**
         * @return each job's {@code id().hashCode()}, position by position (not to be written to): what the next
         *     array's hash codes are patched from
         */
        public int[] idHashes() {
            int[] h = idHashes;
            if (h == null) { // two threads may both make it: the same content either way
                h = new int[jobs.length];
                for (int i = 0; i < h.length; i++) {
                    h[i] = jobs[i].id().hashCode();
                }
                idHashes = h;
            }
            return h;
        }

        /**
         * @param id a job id
         * @return the holding job of that id (for an id listed twice, the later), or null
         */
        public JobStatus find(String id) {
            Map<String, JobStatus> m = byId;
            if (m != null) {
                return m.get(id);
            }
            if (scans >= SCANS_BEFORE_INDEX) {
                return byId().get(id);
            }
            scans++;
            int[] h = idHashes();
            int want = id.hashCode();
            for (int i = h.length - 1; i >= 0; i--) {
                if (h[i] == want && jobs[i].id().equals(id)) {
                    return jobs[i];
                }
            }
            return null;
        }

        /** @return true when the jobs are indexed by id (after {@link #SCANS_BEFORE_INDEX} lookups); for tests */
        boolean indexed() {
            return byId != null;
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
     * @return the jobs as the engine keeps them, to be looked up by id ({@link Stored#find}, which gives them as
     *     {@link #stored(List, int)} does), or null when {@code holding} is not the engine's (the caller then indexes
     *     it itself)
     */
    public static Stored kept(List<JobStatus> holding) {
        return holding instanceof HeldJobs h ? h.kept : null;
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

package io.fairway.submit;

import io.fairway.store.JobStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The job sets behind the submission API: checks permissions, turns each job into the adapter's template, stores
 * the set (the answer waits until it is durable) and only then tells the adapter, which hands the jobs to its engine.
 * The engine decides; the store records.
 */
public final class JobSets {
    /** Turns a job of a set into what the adapter runs, checking it. */
    @FunctionalInterface
    public interface Templates {
        /**
         * @param queue the queue
         * @param jobSetId the job set
         * @param name the job's generated name (a DNS label)
         * @param item the job as submitted
         * @return the template to store (opaque to the store)
         * @throws IllegalArgumentException naming the field and value when the job cannot run as it is
         */
        String template(String queue, String jobSetId, String name, JobSetRequest.Item item);

        /**
         * The template every job like {@code item} shares, stored once per submission: what {@link #template} gives,
         * with {@link JobStore#NAME_MARK} wherever the job's generated name goes. Asked once for each run of equal
         * jobs in a request.
         *
         * @param queue the queue
         * @param jobSetId the job set
         * @param item the job as submitted
         * @param nowMillis the submission's time
         * @return the shared template, or null to be asked {@link #template} for each job instead
         * @throws IllegalArgumentException naming the field and value when such a job cannot run as it is
         */
        default String shared(String queue, String jobSetId, JobSetRequest.Item item, long nowMillis) {
            return null;
        }
    }

    /** Hears of each change once it is durable. */
    public interface Listener {
        /** @param jobs jobs stored, with their templates, in order */
        void submitted(List<Submitted> jobs);

        /** @param jobIds jobs cancelled */
        void cancelled(List<String> jobIds);

        /**
         * @param jobIds jobs whose priority changed
         * @param priority the new priority
         */
        void reprioritized(List<String> jobIds, int priority);

        /**
         * A listener for a caller that acts on submissions only: cancellations and priority changes are recorded in
         * the store and not passed on.
         *
         * @param submitted called with the jobs of each submission, stored, in order
         * @return the listener
         */
        static Listener onSubmitted(Consumer<List<Submitted>> submitted) {
            Objects.requireNonNull(submitted, "submitted");
            return new Listener() {
                @Override
                public void submitted(List<Submitted> jobs) {
                    submitted.accept(jobs);
                }

                @Override
                public void cancelled(List<String> jobIds) {
                }

                @Override
                public void reprioritized(List<String> jobIds, int priority) {
                }
            };
        }
    }

    /**
     * A job stored.
     *
     * @param job as stored
     * @param template its template, or the template it shares with the jobs alike in its set (then {@code fill} is set)
     * @param fill the job's part of a shared template (its generated name), or null
     */
    public record Submitted(JobStore.StoredJob job, String template, String fill) {
        /** @return the job's own template */
        public String expanded() {
            return JobStore.expand(template, fill);
        }
    }

    /** The principal may not do that in that queue. */
    public static final class Forbidden extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Forbidden(String message) {
            super(message);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private final JobStore store;
    private final Templates templates;
    private final Listener listener;
    private final QueuePermissions permissions;
    private final LongSupplier clock;

    /**
     * @param store the store
     * @param templates turns jobs into templates
     * @param listener hears of durable changes
     * @param permissions who may do what
     * @param clock the time (milliseconds)
     */
    public JobSets(JobStore store, Templates templates, Listener listener, QueuePermissions permissions, LongSupplier clock) {
        this.store = store;
        this.templates = templates;
        this.listener = listener;
        this.permissions = permissions;
        this.clock = clock;
    }

    /** @return the store */
    public JobStore store() {
        return store;
    }

    /**
     * @return the start of a request's job names: {@code fw-}, 12 hex digits of the time and 14 of randomness; each
     *     job adds its position in the request (6 hex digits), so names sort in submission order within a request
     */
    static String newPrefix() {
        byte[] b = new byte[7];
        RANDOM.nextBytes(b);
        return "fw-" + String.format("%012x", System.currentTimeMillis() & 0xffffffffffffL) + HexFormat.of().formatHex(b);
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** @return {@code i} as 6 lowercase hex digits */
    static String hex6(int i) {
        char[] c = new char[6];
        for (int k = 5; k >= 0; k--) {
            c[k] = HEX[i & 0xf];
            i >>>= 4;
        }
        return new String(c);
    }

    /**
     * Stores a job set's jobs; returns once they are durable.
     *
     * @param who the principal
     * @param req the job set
     * @return the job ids, in the order of the request
     * @throws Forbidden when the principal may not submit to the queue
     * @throws IllegalArgumentException naming the field when a job cannot run as it is (then none is stored)
     */
    public List<String> submit(Principal who, JobSetRequest req) {
        require(who, QueuePermissions.Verb.SUBMIT, req.queue());
        long now = clock.getAsLong();
        List<JobStore.NewJob> jobs = new ArrayList<>(req.jobs().size());
        String prefix = newPrefix();
        JobSetRequest.Item last = null;
        String lastShared = null;
        for (int i = 0; i < req.jobs().size(); i++) {
            JobSetRequest.Item item = req.jobs().get(i);
            String name = prefix + hex6(i);
            String id = item.namespace() + "/" + name;
            try {
                if (last == null || !item.equals(last)) {
                    lastShared = templates.shared(req.queue(), req.jobSetId(), item, now);
                    last = item;
                }
                jobs.add(lastShared != null ? JobStore.NewJob.shared(id, item.priority(), lastShared, name)
                        : new JobStore.NewJob(id, item.priority(), templates.template(req.queue(), req.jobSetId(), name, item)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("jobs[" + i + "]: " + e.getMessage(), e);
            }
        }
        List<JobStore.StoredJob> stored = store.submit(req.queue(), req.jobSetId(), who.name(), now, jobs);
        List<Submitted> out = new ArrayList<>(stored.size());
        List<String> ids = new ArrayList<>(stored.size());
        for (int i = 0; i < stored.size(); i++) {
            out.add(new Submitted(stored.get(i), jobs.get(i).template(), jobs.get(i).fill()));
            ids.add(stored.get(i).id());
        }
        listener.submitted(out);
        return ids;
    }

    /**
     * @param who the principal
     * @param queue the queue
     * @param jobSetId the job set
     * @param jobIds the jobs, or empty for the whole set
     * @return the jobs cancelled
     */
    public List<String> cancel(Principal who, String queue, String jobSetId, List<String> jobIds) {
        require(who, QueuePermissions.Verb.CANCEL, queue);
        List<String> done = store.cancel(queue, jobSetId, jobIds, who.name(), clock.getAsLong());
        if (!done.isEmpty()) {
            listener.cancelled(done);
        }
        return done;
    }

    /**
     * @param who the principal
     * @param queue the queue
     * @param jobSetId the job set
     * @param jobIds the jobs, or empty for the whole set
     * @param priority the new priority
     * @return the jobs changed
     */
    public List<String> reprioritize(Principal who, String queue, String jobSetId, List<String> jobIds, int priority) {
        require(who, QueuePermissions.Verb.REPRIORITIZE, queue);
        List<String> done = store.reprioritize(queue, jobSetId, jobIds, priority, who.name(), clock.getAsLong());
        if (!done.isEmpty()) {
            listener.reprioritized(done, priority);
        }
        return done;
    }

    /**
     * @param who the principal
     * @param queue the queue
     * @param jobSetId the job set
     * @param afterSeq the last sequence number seen
     * @param limit the most events
     * @return the events after it
     */
    public List<JobStore.Event> events(Principal who, String queue, String jobSetId, long afterSeq, int limit) {
        require(who, QueuePermissions.Verb.WATCH, queue);
        return store.events(queue, jobSetId, afterSeq, limit);
    }

    void require(Principal who, QueuePermissions.Verb verb, String queue) {
        if (!permissions.allows(who, verb, queue)) {
            throw new Forbidden(who.name() + " may not " + verb.name().toLowerCase(java.util.Locale.ROOT) + " in queue " + queue);
        }
    }
}

package io.fairway.api.job;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.model.PriorityClass;
import io.fairway.api.model.Resources;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A job as submitted: a gang of one or more pod sets, placed whole or not at all.
 *
 * <pre>{@code
 * JobSpec job = JobSpec.builder("train-42")
 *     .namespace("team-a").queue("gpu")                     // LocalQueue team-a/gpu
 *     .jobSet("sweep-7").priority(10)
 *     .podSet(PodSet.of("workers", 4, Resources.builder().cpu(8).gpus(2).build()))
 *     .estimatedSeconds(3_600)
 *     .sensitivity(PlacementSensitivity.forModel("vgg16"))
 *     .build();
 * }</pre>
 *
 * @param id unique job id
 * @param namespace the namespace (the LocalQueue's)
 * @param queue the LocalQueue name within the namespace
 * @param jobSet the job set (Armada) or app (Themis) it belongs to; defaults to the id
 * @param owner who submitted it
 * @param priority larger runs first under priority-aware policies
 * @param submitTimeMillis when it was submitted, in the scheduler clock's milliseconds (0 = at submission)
 * @param podSets the pod sets, names unique
 * @param estimatedSeconds estimated run time at full size and ideal placement, or 0 when unknown
 * @param sensitivity throughput factors by locality
 * @param checkpointing how it checkpoints, or null when it does not
 * @param priorityClass the priority class it names, or null for none; on submission the engine replaces it with the
 *     operator's definition of that class (its value becomes the job's priority) and refuses an unknown name
 */
public record JobSpec(String id, String namespace, String queue, String jobSet, String owner, int priority,
                      long submitTimeMillis, List<PodSet> podSets, double estimatedSeconds,
                      PlacementSensitivity sensitivity, Checkpointing checkpointing, PriorityClass priorityClass)
        implements java.io.Serializable {
    /** The namespace used when none is given. */
    public static final String DEFAULT_NAMESPACE = "default";

    /** Validates. */
    public JobSpec {
        // the common case (plain ASCII names, the default namespace, one pod set) is checked without building field
        // names or matching patterns; anything else goes through the full checks, which name the field on failure
        if (!plainName(id)) {
            InvalidSpecException.requireName("job.id", id);
        }
        namespace = namespace == null || namespace.isBlank() ? DEFAULT_NAMESPACE : namespace;
        if (!namespace.equals(DEFAULT_NAMESPACE)) {
            InvalidSpecException.requireDnsLabel("job[" + id + "].namespace", namespace);
        }
        if (!plainName(queue)) {
            InvalidSpecException.check(queue != null && !queue.isBlank(), "job[" + id + "].queue", queue, "job %s: queue (LocalQueue name) is required",
                    id);
            InvalidSpecException.requireName("job[" + id + "].queue", queue);
        }
        jobSet = jobSet == null || jobSet.isBlank() ? id : jobSet;
        if (!plainName(jobSet)) {
            InvalidSpecException.requireName("job[" + id + "].jobSet", jobSet);
        }
        owner = owner == null ? "" : owner;
        if (!owner.isEmpty() && !plainName(owner)) {
            InvalidSpecException.requireName("job[" + id + "].owner", owner);
        }
        if (submitTimeMillis < 0) {
            InvalidSpecException.check(false, "job[" + id + "].submitTimeMillis", submitTimeMillis,
                    "job %s: submitTimeMillis must be >= 0, was %d", id, submitTimeMillis);
        }
        if (podSets != null) {
            int i = 0;
            for (PodSet p : podSets) { // List.contains(null) throws on immutable lists
                if (p == null) {
                    InvalidSpecException.requireNonNull("job[" + id + "].podSets[" + i + "]", p);
                }
                i++;
            }
        }
        podSets = List.copyOf(podSets == null ? List.of() : podSets);
        if (podSets.isEmpty()) {
            InvalidSpecException.check(false, "job[" + id + "].podSets", podSets, "job %s: at least one pod set is required", id);
        }
        if (podSets.size() > 1) {
            Set<String> names = new HashSet<>();
            for (PodSet p : podSets) {
                InvalidSpecException.check(names.add(p.name()), "job[" + id + "].podSets", p.name(), "job %s: pod set \"%s\" appears twice", id,
                        p.name());
            }
        }
        if (!(estimatedSeconds >= 0 && Double.isFinite(estimatedSeconds))) {
            InvalidSpecException.check(false, "job[" + id + "].estimatedSeconds", estimatedSeconds, "job %s: estimatedSeconds must be >= 0, was %s",
                    id, estimatedSeconds);
        }
        sensitivity = sensitivity == null ? PlacementSensitivity.NONE : sensitivity;
    }

    /**
     * A job without a priority class.
     *
     * @param id unique job id
     * @param namespace the namespace
     * @param queue the LocalQueue name
     * @param jobSet the job set
     * @param owner who submitted it
     * @param priority its priority
     * @param submitTimeMillis when it was submitted
     * @param podSets the pod sets
     * @param estimatedSeconds estimated run time, or 0
     * @param sensitivity throughput factors by locality
     * @param checkpointing how it checkpoints, or null
     */
    public JobSpec(String id, String namespace, String queue, String jobSet, String owner, int priority, long submitTimeMillis,
                   List<PodSet> podSets, double estimatedSeconds, PlacementSensitivity sensitivity, Checkpointing checkpointing) {
        this(id, namespace, queue, jobSet, owner, priority, submitTimeMillis, podSets, estimatedSeconds, sensitivity, checkpointing, null);
    }

    /**
     * @return true when {@code s} certainly passes {@link InvalidSpecException#requireName}: not null, at most
     *         {@link InvalidSpecException#MAX_NAME_LENGTH} printable ASCII characters, not all spaces (false: check fully)
     */
    private static boolean plainName(String s) {
        if (s == null || s.isEmpty() || s.length() > InvalidSpecException.MAX_NAME_LENGTH) {
            return false;
        }
        boolean visible = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
            visible |= c != ' ';
        }
        return visible;
    }

    /** @return false when its priority class is not preemptible: no preemption path may take it */
    public boolean preemptible() {
        return priorityClass == null || priorityClass.preemptible();
    }

    /**
     * @param resolved the operator's definition of its class
     * @return a copy in that class, with the class's value as its priority
     */
    public JobSpec withPriorityClass(PriorityClass resolved) {
        return new JobSpec(id, namespace, queue, jobSet, owner, resolved == null ? priority : resolved.value(), submitTimeMillis, podSets,
                estimatedSeconds, sensitivity, checkpointing, resolved);
    }

    /**
     * @param id the job id
     * @return a builder
     */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** @return resources of every pod set at full size */
    public Resources totalResources() {
        Resources r = Resources.NONE;
        for (PodSet p : podSets) {
            r = r.plus(p.total(p.count()));
        }
        return r;
    }

    /** @return GPUs of every pod set at full size */
    public long totalGpus() {
        long g = 0;
        for (PodSet p : podSets) {
            g += p.resources().gpus() * p.count();
        }
        return g;
    }

    /** @return the LocalQueue key {@code namespace/queue} */
    public String localQueueKey() {
        return namespace + "/" + queue;
    }

    /** @return true when any pod set is elastic */
    public boolean isElastic() {
        for (PodSet p : podSets) {
            if (p.isElastic()) {
                return true;
            }
        }
        return false;
    }

    /** @param priority the new priority @return a copy with it */
    public JobSpec withPriority(int priority) {
        return new JobSpec(id, namespace, queue, jobSet, owner, priority, submitTimeMillis, podSets, estimatedSeconds, sensitivity, checkpointing,
                priorityClass);
    }

    /** @param millis the submission time @return a copy with it */
    public JobSpec withSubmitTime(long millis) {
        return new JobSpec(id, namespace, queue, jobSet, owner, priority, millis, podSets, estimatedSeconds, sensitivity, checkpointing,
                priorityClass);
    }

    /** Builds a {@link JobSpec}. */
    public static final class Builder {
        private final String id;
        private String namespace = DEFAULT_NAMESPACE;
        private String queue;
        private String jobSet;
        private String owner = "";
        private int priority;
        private long submitTimeMillis;
        private final List<PodSet> podSets = new ArrayList<>();
        private double estimatedSeconds;
        private PlacementSensitivity sensitivity = PlacementSensitivity.NONE;
        private Checkpointing checkpointing;
        private PriorityClass priorityClass;

        private Builder(String id) {
            this.id = id;
        }

        /** @param namespace namespace @return this */
        public Builder namespace(String namespace) {
            this.namespace = namespace;
            return this;
        }

        /** @param queue LocalQueue name @return this */
        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /** @param jobSet job set @return this */
        public Builder jobSet(String jobSet) {
            this.jobSet = jobSet;
            return this;
        }

        /** @param owner owner @return this */
        public Builder owner(String owner) {
            this.owner = owner;
            return this;
        }

        /** @param priority priority @return this */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /** @param millis submission time @return this */
        public Builder submitTimeMillis(long millis) {
            this.submitTimeMillis = millis;
            return this;
        }

        /** @param podSet a pod set @return this */
        public Builder podSet(PodSet podSet) {
            podSets.add(InvalidSpecException.requireNonNull("podSet", podSet));
            return this;
        }

        /**
         * One pod set named {@code main} of {@code count} members.
         *
         * @param count members
         * @param perMember resources per member
         * @return this
         */
        public Builder members(int count, Resources perMember) {
            podSets.add(PodSet.of("main", count, perMember));
            return this;
        }

        /** @param seconds estimated run time @return this */
        public Builder estimatedSeconds(double seconds) {
            this.estimatedSeconds = seconds;
            return this;
        }

        /** @param sensitivity placement sensitivity @return this */
        public Builder sensitivity(PlacementSensitivity sensitivity) {
            this.sensitivity = sensitivity;
            return this;
        }

        /**
         * @param name the name of an operator-defined priority class (its value replaces the priority on submission)
         * @return this
         */
        public Builder priorityClass(String name) {
            this.priorityClass = name == null ? null : PriorityClass.named(name);
            return this;
        }

        /** @param checkpointing checkpointing @return this */
        public Builder checkpointing(Checkpointing checkpointing) {
            this.checkpointing = checkpointing;
            return this;
        }

        /** @return the job spec */
        public JobSpec build() {
            return new JobSpec(id, namespace, queue, jobSet, owner, priority, submitTimeMillis, podSets, estimatedSeconds, sensitivity, checkpointing,
                priorityClass);
        }
    }
}

package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.LocalQueue;
import io.fairway.config.QueuesConfig;
import io.fairway.core.Scheduler;
import io.fairway.k8s.JobTranslator;
import io.fairway.k8s.Keys;
import io.fairway.k8s.RestoringPolicy;
import io.fairway.store.JobStore;
import io.fairway.store.LeadershipLostException;
import io.fairway.submit.JobSetRequest;
import io.fairway.submit.JobSets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs submitted through the submission API, held in the {@link JobStore} rather than in the manager cluster. Each
 * is a batch/v1 Job template (never created in the manager cluster) that the workers' executors copy once the
 * engine admits it, exactly as a user's Job. The store is the truth of what was submitted, cancelled and
 * reprioritised; the engine decides; each state the engine gives a job is recorded in the store as a job-set event.
 *
 * <p>Durable changes arrive from the API threads into an inbox ({@link #listener()}), applied to the engine on the
 * manager's next pass under its lock. After a start, {@link #recover} gives the engine every job of the store that has
 * not ended, restoring those whose copy a worker runs at their copy (so none runs twice) and ending those whose copy
 * ended while no manager watched.
 */
final class StoredJobs {
    private static final Logger LOG = LoggerFactory.getLogger(StoredJobs.class);
    static final ObjectMapper MAPPER = new ObjectMapper();
    /** Label on a stored job's Job (and its copies): the job set. */
    static final String JOB_SET_LABEL = "fairway.io/job-set";

    /** A stored job the engine knows, and the state last recorded for it. */
    private static final class Tracked {
        final String uid;
        String recorded;
        String worker;

        Tracked(String uid, String recorded) {
            this.uid = uid;
            this.recorded = recorded;
        }
    }

    private final JobStore store;
    private final Scheduler scheduler;
    private final RestoringPolicy policy;
    private final JobTranslator translator;
    private final QueuesConfig config;
    private final Map<String, Tracked> byId = new HashMap<>();
    /** Jobs holding resources or just admitted: the only ones whose state can change without a user's request. */
    private final Set<String> active = new HashSet<>();
    private final Map<String, String[]> outcomes = new HashMap<>();
    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    /** This manager's leadership term in the store (each write of the leader carries it); -1 before it leads. */
    private long term = -1;
    /** False only in the failover test's broken twin: the leader's writes are not checked against the store's term. */
    private boolean fenced = true;
    private Runnable onLeadershipLost = () -> { };
    /** The last event read from the store: every submission, cancellation and reprioritisation up to it is applied. */
    private long cursor;
    /** Each distinct template translated once (the jobs of a set differ by name only); bounded. */
    private final Map<String, JobSpec> protos = new HashMap<>();

    StoredJobs(JobStore store, Scheduler scheduler, RestoringPolicy policy, JobTranslator translator, QueuesConfig config) {
        this.store = store;
        this.scheduler = scheduler;
        this.policy = policy;
        this.translator = translator;
        this.config = config;
    }

    JobStore store() {
        return store;
    }

    // ------------------------------------------------------------------ leadership

    /**
     * This manager leads from now, at {@code term} (claimed in the store): its writes carry the term and the store
     * refuses them once a later term was claimed, which calls {@code lost}.
     *
     * @param term the term
     * @param fenced false only for the failover test's broken twin
     * @param lost called when the store refused a write (another manager leads)
     */
    void lead(long term, boolean fenced, Runnable lost) {
        this.term = term;
        this.fenced = fenced;
        this.onLeadershipLost = lost;
    }

    /** @return the term this manager leads at, or -1 */
    long term() {
        return term;
    }

    /** While not leading: what the API stored goes nowhere (the store has it; the leader reads it from there). */
    void discardInbox() {
        inbox.clear();
        synchronized (sharedSpecs) {
            sharedSpecs.clear();
        }
    }

    /**
     * Before copying jobs into a worker: the store confirms that this manager's term still leads.
     *
     * @return false when another manager took the lead (then nothing may be copied)
     */
    boolean confirmLeadership() {
        if (!fenced) {
            return true;
        }
        if (term < 0) {
            return false;
        }
        try {
            store.confirmLeadership(term);
            return true;
        } catch (RuntimeException e) {
            if (LeadershipLostException.in(e)) {
                LOG.warn("not copying into the workers: {}", e.getMessage());
                onLeadershipLost.run();
            } else {
                LOG.warn("cannot confirm the leadership in the job store; not copying into the workers now: {}", e.getMessage());
            }
            return false;
        }
    }

    private java.util.concurrent.CompletableFuture<Void> write(List<JobStore.Transition> out) {
        java.util.concurrent.CompletableFuture<Void> f = fenced ? store.recordAsLeader(term, out) : store.recordAsLeaderUnfencedForTests(term, out);
        return f.whenComplete((x, e) -> {
            if (e != null && LeadershipLostException.in(e)) {
                LOG.warn("the job store refused this manager's write: {}", e.getMessage());
                onLeadershipLost.run();
            }
        });
    }

    /** A job of the store as the engine's spec: each distinct template (the name aside) translated once. */
    private JobSpec specOf(JobStore.StoredJob job, String template) {
        String uid = job.id().substring(job.id().indexOf('/') + 1);
        String key = template.replace(uid, NAME_PLACEHOLDER);
        JobSpec proto = protos.get(key);
        if (proto == null) {
            if (protos.size() >= 4096) {
                protos.clear();
            }
            proto = toSpec(key, job.id(), job.jobSet(), job.priority());
            protos.put(key, proto);
        }
        return new JobSpec(job.id(), proto.namespace(), proto.queue(), job.jobSet(), proto.owner(), job.priority(), job.submittedMillis(),
                proto.podSets(), proto.estimatedSeconds(), proto.sensitivity(), proto.checkpointing());
    }

    /**
     * Applies what any manager's submission API stored since the last read (the leader's part: a job submitted through
     * a standby reaches the engine so). Each change is applied once: a job the engine knows already (from this
     * manager's own API, or the recovery) is skipped, and one that ended is not queued again.
     */
    private void readStore() {
        while (true) {
            JobStore.Changes ch = store.changesAfter(cursor, 10_000);
            List<JobSpec> specs = new ArrayList<>();
            List<JobStore.Transition> refused = new ArrayList<>();
            Set<String> batch = new HashSet<>();
            for (JobStore.Change c : ch.changes()) {
                String id = c.job().id();
                if (JobStore.SUBMITTED.equals(c.type())) {
                    if (byId.containsKey(id) || c.job().terminal() || !batch.add(id)) {
                        continue;
                    }
                    try {
                        specs.add(specOf(c.job(), c.template()));
                    } catch (IllegalArgumentException e) {
                        refused.add(new JobStore.Transition(id, "FAILED", System.currentTimeMillis(), "cannot be queued: " + e.getMessage()));
                    }
                    continue;
                }
                submitAll(specs); // in order: a cancellation applies to a job queued before it
                specs = new ArrayList<>();
                if ("CANCELLED".equals(c.type())) {
                    cancelLocal(id);
                } else if ("REPRIORITIZED".equals(c.type()) && byId.containsKey(id)) {
                    scheduler.jobs().setPriority(id, c.job().priority());
                }
            }
            submitAll(specs);
            if (!refused.isEmpty()) {
                write(refused);
            }
            cursor = ch.next();
            if (ch.changes().size() < 10_000) {
                return;
            }
        }
    }

    private void cancelLocal(String id) {
        Tracked t = byId.get(id);
        if (t != null && !JobStore.TERMINAL.contains(t.recorded)) {
            t.recorded = "CANCELLED"; // the store has it
            scheduler.cancel(id);
            active.add(id);
        }
    }

    // ------------------------------------------------------------------ templates (API threads)

    /** A job of a set as checked once: its template with a placeholder name, and the engine's spec of it. */
    private record Checked(String template, JobSpec spec) {
    }

    private static final String NAME_PLACEHOLDER = "fw-name-placeholder";
    private static final String EPOCH_PLACEHOLDER = "1970-01-01T00:00:00Z";
    private static final String JOB_SET_PLACEHOLDER = "fw-jobset-placeholder";
    private static final java.util.regex.Pattern LABEL_VALUE = java.util.regex.Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private record Key(String queue, JobSetRequest.Item item) {
    }

    /** Jobs of a set are mostly alike: each distinct job is built and checked once (bounded, least recently used out). */
    private final Map<Key, Checked> checked = new java.util.LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Checked> eldest) {
            return size() > 256;
        }
    };
    /** The engine's spec of each shared template handed out, until the manager's pass takes the jobs (bounded). */
    private final Map<String, JobSpec> sharedSpecs = new java.util.LinkedHashMap<>(1024, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, JobSpec> eldest) {
            return size() > 16_384;
        }
    };

    /**
     * @param clock the time
     * @return the templates of the submission API: each distinct job checked once, the jobs alike in a request sharing
     *     one stored template
     */
    JobSets.Templates templates(java.util.function.LongSupplier clock) {
        return new JobSets.Templates() {
            @Override
            public String template(String queue, String jobSetId, String name, JobSetRequest.Item item) {
                return JobStore.expand(shared(queue, jobSetId, item, clock.getAsLong()), name);
            }

            @Override
            public String shared(String queue, String jobSetId, JobSetRequest.Item item, long nowMillis) {
                return StoredJobs.this.shared(queue, jobSetId, item, nowMillis);
            }
        };
    }

    /** The batch/v1 Job the jobs like {@code item} run as (pod spec, a gang of {@code parallelism} pods, suspended), shared. */
    String shared(String queue, String jobSet, JobSetRequest.Item item, long nowMillis) {
        Key key = new Key(queue, item); // the same job in another set differs by the set's label only
        Checked c;
        synchronized (checked) {
            c = checked.get(key);
        }
        if (c == null) {
            c = check(queue, item);
            synchronized (checked) {
                checked.put(key, c);
            }
        }
        String setLabel = jobSet.length() <= 63 && LABEL_VALUE.matcher(jobSet).matches() ? jobSet : "long";
        String shared = c.template().replace(NAME_PLACEHOLDER, JobStore.NAME_MARK).replace(EPOCH_PLACEHOLDER, Instant.ofEpochMilli(nowMillis).toString())
                .replace(JOB_SET_PLACEHOLDER, setLabel);
        synchronized (sharedSpecs) {
            sharedSpecs.put(shared, c.spec());
        }
        return shared;
    }

    private Checked check(String queue, JobSetRequest.Item item) {
        String raw = item.toString();
        if (raw.contains(NAME_PLACEHOLDER) || raw.contains(EPOCH_PLACEHOLDER) || raw.contains(JOB_SET_PLACEHOLDER)) {
            throw new IllegalArgumentException("a job must not contain the text " + NAME_PLACEHOLDER + ", " + JOB_SET_PLACEHOLDER + " or "
                    + EPOCH_PLACEHOLDER + " (Fairway fills them in)");
        }
        boolean known = false;
        for (LocalQueue lq : config.localQueueModels()) {
            known |= lq.name().equals(queue) && lq.namespace().equals(item.namespace());
        }
        if (!known) {
            throw new IllegalArgumentException("queue must be a LocalQueue of namespace " + item.namespace() + ", was " + queue);
        }
        String name = NAME_PLACEHOLDER;
        ObjectNode job = MAPPER.createObjectNode();
        job.put("apiVersion", "batch/v1");
        job.put("kind", "Job");
        ObjectNode meta = job.putObject("metadata");
        meta.put("name", name);
        meta.put("namespace", item.namespace());
        meta.put("uid", name);
        meta.put("creationTimestamp", EPOCH_PLACEHOLDER);
        ObjectNode labels = meta.putObject("labels");
        item.labels().forEach(labels::put);
        labels.put(Keys.QUEUE_LABEL, queue);
        labels.put(JOB_SET_LABEL, JOB_SET_PLACEHOLDER);
        ObjectNode ann = meta.putObject("annotations");
        item.annotations().forEach(ann::put);
        ObjectNode spec = job.putObject("spec");
        spec.put("parallelism", item.parallelism());
        spec.put("completions", item.parallelism());
        spec.put("suspend", true);
        spec.put("backoffLimit", 0);
        ObjectNode tmpl = spec.putObject("template");
        tmpl.putObject("metadata").putObject("labels").put(JOB_SET_LABEL, labels.get(JOB_SET_LABEL).asText());
        ObjectNode pod = item.podSpec().deepCopy();
        if (!pod.has("restartPolicy")) {
            pod.put("restartPolicy", "Never");
        }
        tmpl.set("spec", pod);
        String json = job.toString();
        // refuses what the engine would not take
        return new Checked(json, toSpec(json, item.namespace() + "/" + name, JOB_SET_PLACEHOLDER, item.priority()));
    }

    private Job job(String template) {
        try {
            return MAPPER.readValue(template, Job.class);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("podSpec: not a pod spec Kubernetes reads: " + e.getMessage(), e);
        }
    }

    private static JobSpec like(JobSpec proto, String id, String jobSet, int priority, long submittedMillis) {
        return new JobSpec(id, proto.namespace(), proto.queue(), jobSet, proto.owner(), priority, submittedMillis, proto.podSets(),
                proto.estimatedSeconds(), proto.sensitivity(), proto.checkpointing());
    }

    private JobSpec toSpec(String template, String id, String jobSet, int priority) {
        JobSpec s = translator.toSpec(job(template), id);
        return new JobSpec(s.id(), s.namespace(), s.queue(), jobSet, s.owner(), priority, s.submitTimeMillis(), s.podSets(),
                s.estimatedSeconds(), s.sensitivity(), s.checkpointing());
    }

    /** @return the listener the job sets tell of durable changes: each goes to the inbox */
    JobSets.Listener listener() {
        return new JobSets.Listener() {
            @Override
            public void submitted(List<JobSets.Submitted> jobs) {
                inbox.add(() -> {
                    List<JobSpec> specs = new ArrayList<>(jobs.size());
                    String lastTemplate = null;
                    JobSpec proto = null;
                    for (JobSets.Submitted s : jobs) {
                        JobStore.StoredJob j = s.job();
                        if (byId.containsKey(j.id())) {
                            continue; // recovered from the store already
                        }
                        if (s.fill() == null) {
                            specs.add(toSpec(s.template(), j.id(), j.jobSet(), j.priority()));
                            continue;
                        }
                        if (s.template() != lastTemplate) {
                            lastTemplate = s.template();
                            synchronized (sharedSpecs) {
                                proto = sharedSpecs.get(lastTemplate);
                            }
                            if (proto == null) {
                                proto = toSpec(JobStore.expand(lastTemplate, NAME_PLACEHOLDER), j.id(), j.jobSet(), j.priority());
                            }
                        }
                        specs.add(like(proto, j.id(), j.jobSet(), j.priority(), j.submittedMillis()));
                    }
                    submitAll(specs);
                });
            }

            @Override
            public void cancelled(List<String> jobIds) {
                inbox.add(() -> jobIds.forEach(StoredJobs.this::cancelLocal));
            }

            @Override
            public void reprioritized(List<String> jobIds, int priority) {
                inbox.add(() -> jobIds.forEach(id -> {
                    if (byId.containsKey(id)) {
                        scheduler.jobs().setPriority(id, priority);
                    }
                }));
            }
        };
    }

    private void submitAll(List<JobSpec> specs) {
        if (specs.isEmpty()) {
            return;
        }
        scheduler.submitAll(specs);
        for (JobSpec s : specs) {
            byId.put(s.id(), new Tracked(s.id().substring(s.id().indexOf('/') + 1), JobStore.QUEUED));
        }
    }

    // ------------------------------------------------------------------ the manager's pass (under its lock)

    /**
     * After a start: every job of the store that has not ended goes to the engine, pinned at the copy a worker holds;
     * a job whose copy ended while no manager watched is recorded as ended.
     *
     * @param copies the copies found in the workers, by job id
     * @return how many jobs were recovered
     */
    long recover(Map<String, UserJobs.Admitted> copies) {
        long t0 = System.nanoTime();
        // what is committed after this number is read by readStore() on each pass (a job in both is taken once)
        cursor = store.committedSeq();
        List<JobSpec> batch = new ArrayList<>();
        List<JobStore.Transition> ended = new ArrayList<>();
        Map<String, JobSpec> protos = new HashMap<>();
        Map<Long, JobSpec> sharedProtos = new HashMap<>();
        long[] n = {0};
        store.forEachLiveJob(live -> {
            JobStore.StoredJob job = live.job();
            if (byId.containsKey(job.id())) {
                return;
            }
            String uid = job.id().substring(job.id().indexOf('/') + 1);
            UserJobs.Admitted copy = copies.get(job.id());
            if (copy != null && copy.outcome() != null && uid.equals(copy.uid())) {
                ended.add(new JobStore.Transition(job.id(), "Succeeded".equals(copy.outcome()) ? "SUCCEEDED" : "FAILED", System.currentTimeMillis(),
                        copy.outcome() + " in worker " + copy.worker() + (copy.message().isEmpty() ? "" : ": " + copy.message())));
                return;
            }
            JobSpec spec;
            try {
                JobSpec proto;
                if (live.fill() != null) {
                    // the jobs sharing a stored template differ by name only: translate each template once
                    proto = sharedProtos.get(live.templateId());
                    if (proto == null) {
                        if (sharedProtos.size() >= 65_536) {
                            sharedProtos.clear();
                        }
                        proto = toSpec(JobStore.expand(live.template(), NAME_PLACEHOLDER), job.id(), job.jobSet(), job.priority());
                        sharedProtos.put(live.templateId(), proto);
                    }
                } else {
                    // a job stored with a whole template: the jobs of a set differ by name only, translate each distinct one once
                    String key = live.template().replace(uid, NAME_PLACEHOLDER);
                    proto = protos.get(key);
                    if (proto == null) {
                        if (protos.size() >= 4096) {
                            protos.clear();
                        }
                        proto = toSpec(key, job.id(), job.jobSet(), job.priority());
                        protos.put(key, proto);
                    }
                }
                spec = like(proto, job.id(), job.jobSet(), job.priority(), job.submittedMillis());
            } catch (IllegalArgumentException e) {
                ended.add(new JobStore.Transition(job.id(), "FAILED", System.currentTimeMillis(), "cannot be queued any more: " + e.getMessage()));
                return;
            }
            batch.add(spec);
            if (copy != null && copy.outcome() == null && uid.equals(copy.uid())) {
                policy.pin(job.id(), copy.admission().placement());
                active.add(job.id());
            }
            if (batch.size() >= 10_000) {
                submitAll(batch);
                batch.clear();
            }
            n[0]++;
        });
        submitAll(batch);
        if (!ended.isEmpty()) {
            write(ended);
        }
        LOG.info("recovered {} queued or running jobs from the job store in {} ms ({} ended while no manager watched)", n[0],
                (System.nanoTime() - t0) / 1_000_000, ended.size());
        return n[0];
    }

    /** Applies what the API stored since the last pass. */
    void drain() {
        Runnable r;
        while ((r = inbox.poll()) != null) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("applying a stored change to the engine failed: {}", e.getMessage());
            }
        }
        if (term >= 0) {
            readStore();
        }
    }

    /** @param admitted the jobs the round admitted */
    void admitted(List<String> admitted) {
        for (String id : admitted) {
            if (byId.containsKey(id)) {
                active.add(id);
            }
        }
    }

    boolean knows(String id) {
        return byId.containsKey(id);
    }

    boolean isOrigin(String id, String uid) {
        Tracked t = byId.get(id);
        return t != null && t.uid.equals(uid);
    }

    void recordOutcome(String id, String outcome, String message) {
        outcomes.put(id, new String[] {outcome, message});
    }

    /** @return the Job a worker copies for a stored job, or null */
    Job userJob(String id) {
        if (!byId.containsKey(id)) {
            return null;
        }
        return store.template(id).map(this::job).orElse(null);
    }

    /** Records each state change of the active jobs in the store (written with the next group commit). */
    void mirror() {
        List<JobStore.Transition> out = new ArrayList<>();
        List<String> ended = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (String id : new ArrayList<>(active)) {
            Tracked t = byId.get(id);
            JobStatus s = scheduler.status(id).orElse(null);
            if (t == null || s == null) {
                active.remove(id);
                continue;
            }
            String worker = s.state().holdsResources() ? scheduler.clusters().clusterOf(id) : null;
            String state;
            String detail;
            switch (s.state()) {
                case ADMITTED -> {
                    state = "LEASED";
                    detail = "admitted into worker " + worker + " at epoch " + scheduler.jobs().epoch(id) + " on "
                            + String.join(", ", s.admission().placement().nodes());
                }
                case RUNNING -> {
                    state = "RUNNING";
                    detail = "running in worker " + worker;
                }
                case SUCCEEDED, FAILED, CANCELLED -> {
                    state = s.state().name();
                    String[] o = outcomes.getOrDefault(id, new String[] {s.state() == JobState.SUCCEEDED ? "Succeeded" : s.state().name(), ""});
                    detail = o[0] + (t.worker == null ? "" : " in worker " + t.worker) + (o[1].isEmpty() ? "" : ": " + o[1]);
                }
                default -> {
                    state = JobStore.QUEUED;
                    detail = t.worker == null ? "queued" : "requeued (was in worker " + t.worker + ")";
                }
            }
            boolean changed = !state.equals(t.recorded) || state.equals("LEASED") && worker != null && !worker.equals(t.worker);
            if (changed && !JobStore.TERMINAL.contains(t.recorded)) {
                out.add(new JobStore.Transition(id, state.equals(JobStore.QUEUED) && t.worker != null ? "REQUEUED" : state, now, detail));
            }
            t.recorded = JobStore.TERMINAL.contains(t.recorded) ? t.recorded : state;
            if (worker != null) {
                t.worker = worker;
            }
            if (s.state().isTerminal()) {
                ended.add(id);
            } else if (s.state() == JobState.PENDING) {
                active.remove(id);
            }
        }
        if (!out.isEmpty()) {
            java.util.concurrent.CompletableFuture<Void> f = write(out);
            if (!ended.isEmpty()) {
                // the end must be durable before the engine forgets the job: its executor then deletes the copy, and a
                // restart that found neither the end nor the copy would run the job again
                try {
                    f.join();
                } catch (java.util.concurrent.CompletionException e) {
                    LOG.warn("cannot record the end of {} jobs; they stay in the engine: {}", ended.size(), e.getMessage());
                    return;
                }
            }
        }
        for (String id : ended) {
            byId.remove(id);
            active.remove(id);
            outcomes.remove(id);
            policy.unpin(id);
            scheduler.jobs().forget(id);
        }
    }

    /** @return how many stored jobs the engine holds */
    int size() {
        return byId.size();
    }

    /** @return the ids the engine holds, by state recorded (for tests) */
    Map<String, String> recorded() {
        Map<String, String> m = new LinkedHashMap<>();
        byId.forEach((k, v) -> m.put(k, v.recorded));
        return m;
    }
}

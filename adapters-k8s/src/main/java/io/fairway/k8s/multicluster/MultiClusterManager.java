package io.fairway.k8s.multicluster;

import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.api.InvalidSpecException;
import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.ClusterSpec;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.config.QueuesConfig;
import io.fairway.core.Clock;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Policies;
import io.fairway.core.RoundResult;
import io.fairway.core.Scheduler;
import io.fairway.k8s.BackgroundLoop;
import io.fairway.k8s.JobTranslator;
import io.fairway.k8s.Keys;
import io.fairway.k8s.LeaseElection;
import io.fairway.k8s.RestoringPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Many clusters, one queue (as Kueue's MultiKueue): a manager holding a client for the manager cluster and one per
 * worker cluster. Users create Jobs labelled with a queue in the manager cluster; they stay suspended there, the
 * source of truth. One engine schedules them over the nodes of all workers (node {@code gpu-1} of worker {@code eu}
 * is {@code eu/gpu-1} in the engine, with {@code Node.cluster} {@code eu}); quota is global. The engine's actuator is
 * an {@link ExecutorHub}; a {@link WorkerExecutor} per worker pulls its work, copies admitted Jobs into its worker,
 * deletes preempted copies and reports the copies' status back, with the epoch of the run each copy carries.
 *
 * <p>The manager mirrors each Job's state onto the user's Job: the annotations {@value #STATE_ANNOTATION},
 * {@value #WORKER_ANNOTATION}, {@value #EPOCH_ANNOTATION} and {@value Keys#PENDING_REASON_ANNOTATION}, an Event at
 * each change, and {@value Keys#FINISHED_ANNOTATION} once it ended. A restarted manager rebuilds the engine from the
 * manager cluster and the copies in the workers: a copy found in a worker is re-admitted there (adopted at its new
 * epoch), and nothing is admitted until every worker has answered or the grace period has passed.
 *
 * <p>Several managers may run against one manager cluster for availability ({@link #startLeaderElection}): they
 * share {@link Settings#identity()} (the owner written on the copies) and compete for a coordination.k8s.io Lease
 * under their own candidate names, as {@code FairwayAdapter} replicas do. Only the Lease holder reads, schedules and
 * touches the workers; the others do nothing. When the leader stops (or loses the Lease) another takes over and
 * recovers as a restarted manager does: from the users' Jobs and the copies in the workers, adopting each running
 * copy at a new epoch, so no Job runs twice. A manager that lost the Lease never acts again (its engine may be
 * stale); {@link #lostLeadership()} tells its process to exit and be restarted.
 *
 * <p>With a job store ({@link #attachStore}) shared by the replicas, every replica's submission API stores jobs, and
 * the leader reads what any of them committed on each pass. A manager taking the lead first claims a new leadership
 * term in the store, then recovers from it; its writes to the store carry the term and are refused once a later
 * term was claimed, and its executors confirm the term before touching a worker — so a leader that lost the Lease
 * without noticing changes nothing and copies nothing (the refusal makes it stop, as a lost Lease does).
 *
 * <p>A worker that stops answering is declared lost after the grace period: its Jobs go back to pending and are
 * admitted in another worker. When it answers again it rejoins and its stale copies are deleted.
 *
 * <pre>{@code
 * MultiClusterManager m = new MultiClusterManager(managerClient, Map.of("eu", euClient, "us", usClient),
 *         QueuesConfig.parse("queues.yaml", yaml), System::currentTimeMillis, MultiClusterManager.Settings.defaults());
 * m.runInBackground(Duration.ofSeconds(1)); // or, in tests: m.reconcileOnce(); m.worker("eu").pollOnce(); ...
 * }</pre>
 */
public final class MultiClusterManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MultiClusterManager.class);

    /** Label on the copies of Jobs in the workers. */
    public static final String COPY_LABEL = "fairway.io/multicluster-copy";
    /** Annotation on a copy: the engine's job id. */
    public static final String JOB_ID_ANNOTATION = "fairway.io/job-id";
    /** Annotation on a copy: the uid of the user's Job in the manager cluster. */
    public static final String ORIGIN_UID_ANNOTATION = "fairway.io/origin-uid";
    /** Annotation on a copy and on the user's Job: the epoch of the run (the admission) the copy is. */
    public static final String EPOCH_ANNOTATION = "fairway.io/epoch";
    /** Annotation on a copy: the identity of the manager that made it (copies of another manager are left alone). */
    public static final String MANAGER_ANNOTATION = "fairway.io/manager";
    /** Annotation on the user's Job: the worker it is admitted in. */
    public static final String WORKER_ANNOTATION = "fairway.io/worker";
    /** Annotation on the user's Job: its state in the engine (PENDING, ADMITTED, RUNNING, SUCCEEDED, FAILED …). */
    public static final String STATE_ANNOTATION = "fairway.io/state";
    /** Event reason: the Job was copied into a worker. */
    public static final String REASON_DISPATCHED = "DispatchedToWorker";
    /** Event reason: the Job runs in its worker. */
    public static final String REASON_RUNNING = "RunningInWorker";
    /** Event reason: the Job went back to pending (its worker was lost, or it was preempted). */
    public static final String REASON_REQUEUED = "Requeued";
    /** Event reason: the Job ended in its worker. */
    public static final String REASON_FINISHED = "FinishedInWorker";

    /**
     * How the manager runs.
     *
     * @param grace a worker silent this long is declared lost
     * @param ackTimeout unacknowledged work is offered to the executor again after this long
     * @param namespace the manager cluster's namespace to watch, or null for all
     * @param identity this manager's identity, written on the copies
     */
    public record Settings(Duration grace, Duration ackTimeout, String namespace, String identity) {
        /** Checks. */
        public Settings {
            InvalidSpecException.check(grace != null && !grace.isNegative() && !grace.isZero(), "grace", grace, "grace must be > 0, was %s", grace);
            InvalidSpecException.check(ackTimeout != null && !ackTimeout.isNegative() && !ackTimeout.isZero(), "ackTimeout", ackTimeout,
                    "ackTimeout must be > 0, was %s", ackTimeout);
            identity = identity == null || identity.isBlank() ? "fairway-manager" : identity;
        }

        /** @return a 2-minute grace period, 30 s acknowledgement timeout, all namespaces */
        public static Settings defaults() {
            return new Settings(Duration.ofMinutes(2), Duration.ofSeconds(30), null, "fairway-manager");
        }
    }

    private final KubernetesClient manager;
    private final QueuesConfig config;
    private final Clock clock;
    private final Settings settings;
    private final JobTranslator translator;
    private final Object lock = new Object();
    private final Map<String, WorkerExecutor> workers = new TreeMap<>();
    private final ExecutorHub hub;
    private final Scheduler scheduler;
    private final RestoringPolicy policy;
    private long startedMillis;
    private volatile LeaderElection election;
    private volatile boolean leading = true;
    private volatile boolean lostLeadership;
    private volatile boolean closed;
    /** When (System.nanoTime) this manager last read the Lease and found it its own; 0: never. */
    private volatile long leaseConfirmedNanos;
    private LeaseElection elector;
    private boolean recovered;
    private BackgroundLoop loop;

    private final UserJobs userJobs;
    private volatile StoredJobs stored;
    /** False only in the failover test's broken twin (a test-only switch): a leader that never doubts it leads. */
    private volatile boolean fencing = true;

    /**
     * How managers of one manager cluster elect the one that acts.
     *
     * @param namespace the Lease's namespace
     * @param leaseName the Lease's name
     * @param candidate this manager's name in the Lease (its pod name)
     * @param leaseDuration how long the Lease holds without renewal
     * @param renewDeadline how long the leader tries to renew before it stops leading
     * @param retryPeriod how often candidates retry and the leader renews
     */
    public record LeaderElection(String namespace, String leaseName, String candidate, Duration leaseDuration, Duration renewDeadline,
                                 Duration retryPeriod) {
        /** Validates. */
        public LeaderElection {
            InvalidSpecException.requireName("leaderElection.namespace", namespace);
            InvalidSpecException.requireName("leaderElection.leaseName", leaseName);
            InvalidSpecException.requireName("leaderElection.candidate", candidate);
            InvalidSpecException.check(leaseDuration != null && retryPeriod != null && renewDeadline != null && !retryPeriod.isNegative()
                    && !retryPeriod.isZero(), "leaderElection.retryPeriod", retryPeriod, "lease timings must be given and > 0, retry period was %s",
                    retryPeriod);
            InvalidSpecException.check(renewDeadline.compareTo(leaseDuration) < 0, "leaderElection.renewDeadline", renewDeadline,
                    "renewDeadline %s must be shorter than leaseDuration %s", renewDeadline, leaseDuration);
        }

        /**
         * @param namespace the Lease's namespace
         * @param leaseName the Lease's name
         * @param candidate this manager's name in the Lease
         * @return an election with a 15 s Lease, renewed for up to 10 s, retried every 2 s
         */
        public static LeaderElection of(String namespace, String leaseName, String candidate) {
            return new LeaderElection(namespace, leaseName, candidate, Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));
        }
    }

    /**
     * What one {@link #reconcileOnce()} did.
     *
     * @param acted false while the manager waits for the workers to answer after a start, or while it does not lead
     * @param round the engine's round after the pass
     * @param admitted the jobs admitted in the pass
     * @param lost the workers declared lost in the pass
     */
    public record ReconcileResult(boolean acted, long round, List<String> admitted, List<String> lost) {
        /** Copies. */
        public ReconcileResult {
            admitted = List.copyOf(admitted);
            lost = List.copyOf(lost);
        }
    }

    /**
     * @param manager the manager cluster's client (the caller closes it)
     * @param workers each worker cluster's name and client (the caller closes them); names are DNS labels
     * @param config queues, flavors and the policy; quota is global across the workers
     * @param clock the clock of the engine and of the grace period
     * @param settings how to run
     */
    public MultiClusterManager(KubernetesClient manager, Map<String, KubernetesClient> workers, QueuesConfig config, Clock clock, Settings settings) {
        InvalidSpecException.check(workers != null && !workers.isEmpty(), "workers", workers, "at least one worker cluster is needed");
        this.manager = manager;
        this.config = config;
        this.clock = clock;
        this.settings = settings;
        this.translator = new JobTranslator(List.of(Keys.QUEUE_LABEL), List.of(), pc -> null);
        this.hub = new ExecutorHub(clock, settings.ackTimeout().toMillis(), WorkerExecutor.BATCH, settings.grace().toMillis());
        this.policy = new RestoringPolicy(Policies.create(config.policy(), config.policyParameters()));
        Scheduler.Builder b = Scheduler.builder().policy(policy).actuator(hub).clock(clock);
        for (String w : new TreeMap<>(workers).keySet()) {
            InvalidSpecException.check(w.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?"), "workers", w,
                    "worker name \"%s\" must be a DNS label (lowercase letters, digits and '-')", w);
            b.cluster(new ClusterSpec(w, config.topologyLevels()));
        }
        config.flavorModels().forEach(b::flavor);
        config.cohortModels().forEach(b::cohort);
        config.clusterQueueModels().forEach(b::clusterQueue);
        config.localQueueModels().forEach(b::localQueue);
        this.scheduler = b.build();
        hub.attach(scheduler);
        this.userJobs = new UserJobs(this, manager, scheduler, policy, translator, settings);
        this.startedMillis = clock.millis();
        new TreeMap<>(workers).forEach((w, c) -> {
            hub.register(w);
            this.workers.put(w, new WorkerExecutor(w, c, this, startedMillis));
        });
    }

    // ------------------------------------------------------------------ leader election

    /**
     * From now on, act only while holding the Lease: this manager joins the election, and its passes (and its
     * executors' passes) do nothing until it leads. Call it once, before the loop starts.
     *
     * @param le the Lease and this manager's candidate name
     * @return this
     * @throws IllegalStateException when the election was started already
     */
    public MultiClusterManager startLeaderElection(LeaderElection le) {
        synchronized (lock) {
            if (election != null) {
                throw new IllegalStateException("leader election is started already (as " + election.candidate() + ")");
            }
            election = le;
            leading = false;
        }
        elector = new LeaseElection(manager, le.namespace(), le.leaseName(), le.candidate(), le.leaseDuration(), le.renewDeadline(),
                le.retryPeriod()).start("fairway-multicluster", this::startedLeading, this::stoppedLeading);
        return this;
    }

    /** @return true while this manager acts: always without leader election, else while it holds the Lease */
    public boolean isLeader() {
        return leading && !lostLeadership && !closed;
    }

    /** @return true once this manager led and then lost the Lease: it acts no more, and its process should restart */
    public boolean lostLeadership() {
        return lostLeadership;
    }

    private void startedLeading() {
        synchronized (lock) {
            if (lostLeadership) {
                return;
            }
            // recover as a restarted manager: from the users' Jobs and the copies in the workers, giving silent workers
            // the grace period from now
            startedMillis = clock.millis();
            recovered = false;
            workers.keySet().forEach(hub::register);
            workers.values().forEach(w -> w.reset(startedMillis));
            leading = true;
        }
        LOG.info("{} leads the multi-cluster manager: recovering the state from the manager and worker clusters and the job store",
                election.candidate());
    }

    private void stoppedLeading() {
        if (!fencing) {
            LOG.warn("{} lost the Lease but goes on acting: fencing is switched off (a test-only setting)", election.candidate());
            return;
        }
        boolean was = leading;
        leading = false;
        if (was && !closed) {
            lostLeadership = true;
            LOG.warn("{} stopped leading; it acts no more", election == null ? settings.identity() : election.candidate());
        }
    }

    /** True while this manager may act: it leads, and (with an election) the Lease says so now. */
    private boolean mayAct() {
        if (!isLeader()) {
            return false;
        }
        if (!fencing) {
            return true;
        }
        LeaderElection le = election;
        if (le == null) {
            return true;
        }
        LeaseElection e = elector;
        boolean held = e != null && e.holdsNow();
        if (held) {
            leaseConfirmedNanos = System.nanoTime();
        }
        return held;
    }

    /**
     * True while the executors may touch the workers: this manager leads and (with an election) found the Lease its
     * own within the renew deadline, on its last pass — so a leader that lost the Lease without noticing yet stops
     * before another can have taken over.
     */
    boolean mayPoll() {
        if (!isLeader()) {
            return false;
        }
        LeaderElection le = election;
        long confirmed = leaseConfirmedNanos;
        return le == null || !fencing || confirmed != 0 && System.nanoTime() - confirmed < le.renewDeadline().toNanos();
    }

    // ------------------------------------------------------------------ accessors

    /** @param name a worker @return its executor */
    public WorkerExecutor worker(String name) {
        WorkerExecutor w = workers.get(name);
        if (w == null) {
            throw new InvalidSpecException("worker", name, "no worker cluster named " + name);
        }
        return w;
    }

    /** @return the workers' executors, by name */
    public Collection<WorkerExecutor> workers() {
        return List.copyOf(workers.values());
    }

    /** @return the engine (for status, explanations and tests) */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** @return the hub the executors pull from */
    public ExecutorHub hub() {
        return hub;
    }

    /**
     * @param namespace the user's Job's namespace
     * @param name its name
     * @return its status in the engine
     */
    public Optional<JobStatus> status(String namespace, String name) {
        synchronized (lock) {
            return scheduler.status(namespace + "/" + name);
        }
    }

    Object lock() {
        return lock;
    }

    Clock clock() {
        return clock;
    }

    String identity() {
        return settings.identity();
    }

    List<String> queueLabels() {
        return List.of(Keys.QUEUE_LABEL, Keys.KUEUE_QUEUE_LABEL);
    }

    ResourceFlavor flavor(String name) {
        for (ResourceFlavor f : config.flavorModels()) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    boolean owns(Job copy) {
        String m = BatchJobFields.annotation(copy, MANAGER_ANNOTATION);
        return m == null || m.equals(settings.identity());
    }

    boolean recovered() {
        return recovered;
    }

    /**
     * Called by the executors before they copy jobs into a worker: with a job store, the store confirms that this
     * manager's leadership term is still the latest (fencing), so a manager that lost the lead copies nothing.
     *
     * @return false when copying must not happen
     */
    boolean confirmDispatch() {
        StoredJobs s = stored;
        return s == null || s.confirmLeadership();
    }

    /** A write of this manager was refused by the store: another manager took the lead. */
    private void leadershipLostInStore() {
        if (!fencing) {
            return;
        }
        leading = false;
        if (!closed) {
            lostLeadership = true;
        }
    }

    /**
     * FOR TESTS ONLY: this manager neither checks the Lease before it acts nor has its store writes checked against
     * its leadership term, and goes on acting after it lost the Lease — the failover test's deliberately broken twin,
     * which must then see jobs dispatched twice or written by two leaders. Never in production.
     *
     * @return this
     */
    public MultiClusterManager withoutFencingForTests() {
        fencing = false;
        LOG.warn("fencing is switched off: a test-only setting under which two managers can act at once");
        return this;
    }

    boolean restoring(String id) {
        return policy.pinned().contains(id);
    }

    boolean isOrigin(String id, String uid) {
        StoredJobs s = stored;
        return s != null && s.isOrigin(id, uid) || userJobs.isOrigin(id, uid);
    }

    /** @return the user's Job as the manager cluster has it now (or a stored job's Job), or null */
    Job userJob(String id) {
        StoredJobs s = stored;
        if (s != null && s.knows(id)) {
            return s.userJob(id);
        }
        return userJobs.userJob(id);
    }

    void recordOutcome(String id, String outcome, String message) {
        StoredJobs s = stored;
        if (s != null && s.knows(id)) {
            s.recordOutcome(id, outcome, message);
            return;
        }
        userJobs.recordOutcome(id, outcome, message);
    }

    // ------------------------------------------------------------------ the job store

    /**
     * Queues jobs outside the manager cluster too: jobs submitted through the returned {@link io.fairway.submit.JobSets} (served over
     * HTTP by {@link io.fairway.submit.SubmitServer}) are stored durably in {@code store} before they are
     * acknowledged, handed to the engine on the next pass, and copied into the workers once admitted, as users' Jobs
     * are. On the first pass after a start the manager recovers every job of the store that has not ended. Call it
     * once, before the loop starts.
     *
     * @param store the job store (the caller closes it after this manager)
     * @param permissions who may submit, cancel, reprioritise and watch in each queue
     * @return the job sets to serve
     */
    public io.fairway.submit.JobSets attachStore(io.fairway.store.JobStore store, io.fairway.submit.QueuePermissions permissions) {
        synchronized (lock) {
            if (stored != null) {
                throw new IllegalStateException("a job store is attached already");
            }
            StoredJobs s = new StoredJobs(store, scheduler, policy, translator, config);
            stored = s;
            return new io.fairway.submit.JobSets(store, s.templates(clock::millis), s.listener(),
                    permissions, clock::millis);
        }
    }

    /** @return the number of stored jobs the engine holds (queued or running) */
    public int storedJobs() {
        StoredJobs s = stored;
        synchronized (lock) {
            return s == null ? 0 : s.size();
        }
    }

    // ------------------------------------------------------------------ the loop

    /**
     * One pass of the manager: read the users' Jobs from the manager cluster, declare silent workers lost, run a
     * round (its decisions go to the hub), and mirror each Job's state onto the user's Job. The executors' passes
     * ({@link WorkerExecutor#pollOnce()}) are separate, so tests can interleave them.
     *
     * @return what it did
     * @throws KubernetesClientException when the manager cluster does not answer
     */
    public ReconcileResult reconcileOnce() {
        synchronized (lock) {
            if (!mayAct()) {
                StoredJobs st = stored;
                if (st != null && !isLeader()) {
                    // a standby: what its API stored is in the store, where the leader reads it; its watchers learn of the
                    // leader's events
                    st.discardInbox();
                    try {
                        st.store().refreshCommitted();
                    } catch (RuntimeException e) {
                        LOG.debug("cannot read the job store: {}", e.getMessage());
                    }
                }
                return new ReconcileResult(false, scheduler.round(), List.of(), List.of());
            }
            StoredJobs claim = stored;
            if (claim != null && !recovered && claim.term() < 0) {
                // take the lead in the store before reading anything to recover: from this commit on, the writes of an
                // earlier leader are refused, so what is read next cannot change behind this manager's back
                long term = claim.store().claimLeadership(election == null ? settings.identity() : election.candidate(), clock.millis());
                claim.lead(term, fencing, this::leadershipLostInStore);
                LOG.info("leadership term {} claimed in the job store", term);
            }
            List<Job> jobs = userJobs.listUserJobs();
            Map<String, UserJobs.Admitted> copies = recovered ? Map.of() : userJobs.copiesInWorkers();
            if (!recovered) {
                boolean allAnswered = workers.values().stream().allMatch(WorkerExecutor::reachable);
                if (!allAnswered && clock.millis() - startedMillis <= settings.grace().toMillis()) {
                    return new ReconcileResult(false, scheduler.round(), List.of(), List.of());
                }
            }
            userJobs.syncJobs(jobs, copies);
            StoredJobs st = stored;
            if (st != null) {
                if (!recovered) {
                    st.recover(copies);
                }
                st.drain();
            }
            recovered = true;
            List<String> lost = hub.checkLiveness();
            RoundResult r = scheduler.runRound();
            List<String> admitted = new ArrayList<>();
            for (Decision d : r.decisions()) {
                if (d instanceof Admit a) {
                    admitted.add(a.jobId());
                }
            }
            for (String id : policy.pinned()) {
                policy.unpin(id); // a pin is one attempt: a copy not re-admitted is stale and deleted
            }
            userJobs.mirror();
            if (st != null) {
                st.admitted(admitted);
                st.mirror();
            }
            return new ReconcileResult(true, r.round(), admitted, lost);
        }
    }

    /**
     * Runs the loop on a background thread: a manager pass then every executor's pass, every {@code period}, and
     * sooner when the engine asked for a round by time ({@link Scheduler#nextWakeupMillis}: a policy's
     * {@code wakeAt}, a lease expiring). Errors of one pass are logged and the next pass goes on.
     *
     * @param period time between passes
     * @return this
     */
    public MultiClusterManager runInBackground(Duration period) {
        long periodMillis = Math.max(1, period.toMillis());
        long[] last = {Long.MIN_VALUE / 2};
        loop = BackgroundLoop.start("fairway-multicluster", Math.min(200, periodMillis), () -> {
            long now = clock.millis();
            // a pass every period, and sooner when the engine asked for a round by time (a policy's wakeAt, a lease)
            if (now - last[0] < periodMillis && now < scheduler.nextWakeupMillis(periodMillis).orElse(Long.MAX_VALUE)) {
                return;
            }
            last[0] = now;
            try {
                reconcileOnce();
            } catch (RuntimeException e) {
                LOG.warn("manager pass failed: {}", e.getMessage());
            }
            for (WorkerExecutor w : workers.values()) {
                try {
                    w.pollOnce();
                } catch (RuntimeException e) {
                    LOG.warn("executor pass of worker {} failed: {}", w.name(), e.getMessage());
                }
            }
        });
        return this;
    }

    /** Stops the loop and, with leader election, gives up the Lease (another manager takes over). */
    @Override
    public void close() {
        if (loop != null) {
            loop.close();
        }
        synchronized (lock) {
            closed = true;
            leading = false;
        }
        if (elector != null) {
            elector.close();
        }
    }

    /**
     * Runs a manager: {@code --manager-kubeconfig FILE --config queues.yaml --worker NAME=KUBECONFIG ...
     * [--grace-seconds 120] [--namespace NS]}.
     *
     * @param args the arguments
     * @throws Exception when the configuration cannot be read
     */
    public static void main(String[] args) throws Exception {
        ManagerMain.run(args);
    }
}

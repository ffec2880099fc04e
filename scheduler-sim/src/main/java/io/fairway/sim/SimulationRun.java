package io.fairway.sim;

import io.fairway.api.decision.Admit;
import io.fairway.api.decision.Decision;
import io.fairway.api.decision.Placement;
import io.fairway.api.decision.Preempt;
import io.fairway.api.decision.Resize;
import io.fairway.api.event.EventType;
import io.fairway.api.event.SchedulerEvent;
import io.fairway.api.job.Checkpointing;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.core.Scheduler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One simulation of one policy: the event loop, the actuator and the bookkeeping behind the metrics. */
final class SimulationRun {
    private static final Logger LOG = LoggerFactory.getLogger(SimulationRun.class);
    private static final int COMPLETION = 0;
    private static final int ACTION = 1;
    private static final int ARRIVAL = 2;
    private static final int LEASE = 3;
    private static final int TICK = 4;
    static final int NODES_UP = 5;
    static final int SPOT_NOTICE = 6;
    static final int SPOT_INTERRUPTION = 7;
    static final int WAKE = 8;
    static final int RETRY = 9;
    static final int PROVISION_RETRY = 10;
    /** How often quota reserved behind an admission check asks again, for {@link Scheduler#nextWakeupMillis}. */
    private static final long CHECK_RETRY_MILLIS = 60_000;

    /** A future event; at one instant completions go first, then cluster actions, arrivals, lease expiries, ticks. */
    private record Event(long time, int kind, long seq, Object payload, long runId) {
    }

    private final SimulationInput input;
    private final String policy;
    private final SimulationOptions options;
    private final ProgressListener progress;
    private final long totalGpus;

    private final PriorityQueue<Event> queue = new PriorityQueue<>(
            Comparator.comparingLong(Event::time).thenComparingInt(Event::kind).thenComparingLong(Event::seq));
    final Map<String, JobTrack> tracks = new HashMap<>();
    private final List<JobTrack> order = new ArrayList<>();
    private final TreeMap<Integer, JobTrack> runningTracks = new TreeMap<>();
    private final List<SkippedJob> skipped = new ArrayList<>();
    private final List<EventRecord> events = new ArrayList<>();
    private final List<ActuationRecord> actuations = new ArrayList<>();
    private final List<TimelinePoint> timeline = new ArrayList<>();
    private final List<long[]> presentSteps = new ArrayList<>(); // {time, jobs present from then on}

    Scheduler scheduler;
    private long seq;
    /** The simulated clock; volatile because a served run's HTTP threads read it through the scheduler's clock. */
    volatile long now;
    private long lastTime;
    private long busyGpus;
    private long lastFinish = -1;
    private double busyGpuMillis;
    private int present;
    private int pending;
    private int running;
    private int finished;
    private int preemptions;
    private long rounds;
    private long roundNanos;
    private int nonTickEvents;
    private boolean tickScheduled;
    private int lastRoundDecisions;
    /**
     * True once some admission carried a lease or a round renewed one: until then no running job can have a lease,
     * and {@link #watchLeases} need not ask the scheduler about each of them after every round.
     */
    private boolean leases;
    /** The jobs whose leases the last round renewed, with their new expiries (as the engine applied them). */
    private Map<String, Long> lastRenewals = Map.of();
    /** False only in tests: look up every running job's lease after every round, as before the shortcuts. */
    private boolean leaseShortcuts = true;
    /** Rounds after which only the renewed leases were looked at ({@link #watchRenewedLeases}), for tests. */
    long renewedOnlyWatches;
    private long horizon = Long.MAX_VALUE;
    final Infrastructure infra;
    /** Times a WAKE event is queued for. */
    final java.util.Set<Long> wakes = new java.util.HashSet<>();
    private final ActuatorFaults faults;
    /** The actuator's retries, when faults are injected. */
    private final ActuatorRetries actuator;
    private final NodeEvents nodes;
    private final SimulationHooks hooks;

    SimulationRun(SimulationInput input, String policy, SimulationOptions options, ProgressListener progress, SimulationHooks hooks) {
        this.hooks = hooks == null ? SimulationHooks.NONE : hooks;
        this.input = input;
        this.policy = policy;
        this.options = options;
        this.progress = progress == null ? ProgressListener.NONE : progress;
        this.totalGpus = capacityGpus(input.cluster());
        this.infra = new Infrastructure(input.cluster(), options.seed());
        this.faults = options.actuatorFaults();
        this.actuator = new ActuatorRetries(this, faults, options.seed());
        this.nodes = new NodeEvents(this);
    }

    /** @return the actuator's faults */
    ActuatorFaults faults() {
        return faults;
    }

    /** @return the actuator's retries */
    ActuatorRetries actuator() {
        return actuator;
    }

    /** @return the jobs waiting now */
    int pending() {
        return pending;
    }

    /** Static GPUs plus the pools' GPU limits (pools without one count their largest instance once). */
    private static long capacityGpus(ClusterModel c) {
        long g = c.totalGpus();
        for (SimNodePool p : c.nodePools()) {
            long limit = p.pool().limits().gpus();
            int largest = 0;
            for (io.fairway.api.model.InstanceType t : p.pool().instanceTypes()) {
                largest = Math.max(largest, t.gpus().size());
            }
            g += p.pool().limits().names().contains(io.fairway.api.model.Resources.GPU) ? limit : largest;
        }
        return g;
    }

    SimulationResult run() {
        scheduler = buildScheduler();
        hooks.started(scheduler);
        scheduleInput();
        int total = order.size();
        int reported = -1;
        presentSteps.add(new long[] {0, 0});
        while (!queue.isEmpty()) {
            long t = queue.peek().time();
            if (t > horizon) {
                LOG.warn("{} under {}: stopped at the horizon t={} s with {} job(s) unfinished; the policy lets no work finish"
                        + " (or raise maxSimulatedSeconds)", input.name(), policy, horizon / 1000, total - finished);
                break;
            }
            hooks.beforeTime(t);
            advanceTo(t);
            List<Event> batch = new ArrayList<>();
            while (!queue.isEmpty() && queue.peek().time() == t) {
                batch.add(queue.poll());
            }
            List<io.fairway.api.job.JobSpec> arrivals = new ArrayList<>();
            boolean effective = false;
            for (Event e : batch) {
                effective |= handle(e, arrivals);
            }
            if (!effective) {
                watchWakeups(); // a wakeup held back for this event must not be lost with it
                continue; // only stale completions or lease expiries of jobs that stopped since: nothing to decide
            }
            if (!arrivals.isEmpty()) {
                scheduler.submitAll(arrivals);
                present += arrivals.size();
                pending += arrivals.size();
            }
            runRound();
            if (faults.any()) {
                actuator.checkConsistency();
            }
            nodes.removeDeprovisioned();
            watchLeases();
            watchWakeups();
            recordState();
            scheduleTick();
            int pct = total == 0 ? 100 : (int) (100L * finished / total);
            if (pct != reported) {
                reported = pct;
                progress.progress(total == 0 ? 1.0 : (double) finished / total);
            }
        }
        progress.progress(1.0);
        hooks.finished(lastTime);
        return result();
    }

    /**
     * Handles one event of a batch; an arrival's jobs go into {@code arrivals}, submitted with the batch.
     *
     * @return whether it changed anything to decide on (a stale completion or lease expiry of a job that stopped does not)
     */
    private boolean handle(Event e, List<io.fairway.api.job.JobSpec> arrivals) {
        if (e.kind() != TICK) {
            nonTickEvents--;
        }
        return switch (e.kind()) {
            case COMPLETION -> complete((JobTrack) e.payload(), e.runId());
            case ACTION -> {
                applyAction((ClusterAction) e.payload());
                yield true;
            }
            case ARRIVAL -> {
                @SuppressWarnings("unchecked")
                List<JobTrack> ts = (List<JobTrack>) e.payload();
                for (JobTrack tr : ts) {
                    arrivals.add(tr.job.spec());
                }
                yield true;
            }
            case LEASE -> leaseExpires((JobTrack) e.payload(), e.runId());
            case NODES_UP -> {
                nodes.nodesUp((NodeEvents.NodesUp) e.payload());
                yield true;
            }
            case SPOT_NOTICE -> nodes.spotNotice((String) e.payload());
            case SPOT_INTERRUPTION -> nodes.spotInterruption((String) e.payload());
            case WAKE -> {
                wakes.remove(e.time());
                yield true;
            }
            case RETRY -> actuator.retryStart((ActuatorRetries.Start) e.payload());
            case PROVISION_RETRY -> actuator.retryProvision((ActuatorRetries.ProvisionTry) e.payload());
            default -> {
                tickScheduled = false;
                yield true;
            }
        };
    }

    /** The result once the events ran out: the metrics, with utilisation of the GPUs present when node pools come and go. */
    private SimulationResult result() {
        SimulationResult result = Results.of(policy, input, order, skipped, timeline, totalGpus, events, actuations, presentSteps, busyGpuMillis,
                lastFinish >= 0 ? lastFinish : lastTime, preemptions, rounds, roundNanos);
        InfraMetrics im = infra.finish(lastTime);
        if (im.pools()) {
            // nodes come and go: utilisation is of the GPUs present, not of a fixed cluster
            PolicyMetrics m = result.metrics();
            double util = infra.nodeGpuMillis() > 0 ? busyGpuMillis / infra.nodeGpuMillis() : 0;
            result = new SimulationResult(policy, new PolicyMetrics(m.policy(), m.jobs(), m.skipped(), m.completed(), m.avgJctSeconds(),
                    m.p50JctSeconds(), m.p95JctSeconds(), m.p99JctSeconds(), m.avgQueueingDelaySeconds(), m.p95QueueingDelaySeconds(),
                    m.makespanSeconds(), util, m.maxRho(), m.meanRho(), m.jainIndex(), m.preemptions(), m.lostWorkSeconds(), m.rounds(),
                    m.schedulerMillisPerRound()), result.jobs(), result.skipped(), result.timeline(), result.totalGpus(), result.events(),
                    result.actuations(), im);
        }
        result = result.withInfra(im);
        if (faults.any()) {
            result = result.withActuator(actuator.metrics());
        }
        return result;
    }

    private Scheduler buildScheduler() {
        Scheduler.Builder b = Scheduler.builder()
                .policy(policy, options.policyParameters())
                .placement(options.placement())
                .clock(() -> now)
                .seed(options.seed())
                .actuator(this::actuate)
                .listener(this::onEvent);
        input.configure(b);
        for (SimNodePool p : input.cluster().nodePools()) {
            b.nodePool(p.pool());
        }
        return b.build();
    }

    private void scheduleInput() {
        List<SimJob> jobs = new ArrayList<>(input.jobs());
        // Stable: jobs of one instant keep their input order.
        jobs.sort(Comparator.comparingLong(SimJob::submitMillis));
        TreeMap<Long, List<JobTrack>> byTime = new TreeMap<>();
        for (SimJob j : jobs) {
            long maxGpus = input.cluster().maxGpus();
            if (j.gpus() > maxGpus) {
                skipped.add(new SkippedJob(j.id(), j.gpus(), "asks for " + j.gpus() + " GPUs; the cluster has at most " + maxGpus));
                continue;
            }
            JobTrack t = new JobTrack(j, order.size());
            if (tracks.put(j.id(), t) != null) {
                throw new io.fairway.api.InvalidSpecException("job.id", j.id(), "job id " + j.id() + " appears twice in the input");
            }
            order.add(t);
            byTime.computeIfAbsent(j.submitMillis(), k -> new ArrayList<>()).add(t);
        }
        if (!skipped.isEmpty()) {
            List<String> first = new ArrayList<>();
            for (SkippedJob s : skipped.subList(0, Math.min(5, skipped.size()))) {
                first.add(s.id() + " (" + s.gpus() + " GPUs)");
            }
            LOG.warn("{}: skipped {} job(s) asking for more GPUs than the whole cluster ({}): {}{}", input.name(), skipped.size(),
                    totalGpus, String.join(", ", first), skipped.size() > 5 ? ", ..." : "");
        }
        byTime.forEach((time, ts) -> push(time, ARRIVAL, ts, 0));
        if (options.maxSimulatedSeconds() > 0) {
            horizon = (long) Math.min(Long.MAX_VALUE / 2, options.maxSimulatedSeconds() * 1000);
        } else {
            double work = 0;
            for (JobTrack t : order) {
                work += t.workMillis;
            }
            long lastSubmit = byTime.isEmpty() ? 0 : byTime.lastKey();
            long lastAction = 0;
            for (ClusterAction a : input.actions()) {
                lastAction = Math.max(lastAction, a.atMillis());
            }
            horizon = (long) Math.min(Long.MAX_VALUE / 2, Math.max(lastSubmit, lastAction) + 10 * work + 86_400_000.0);
        }
        for (ClusterAction a : input.actions()) {
            push(a.atMillis(), ACTION, a, 0);
        }
    }

    void push(long time, int kind, Object payload, long runId) {
        queue.add(new Event(time, kind, seq++, payload, runId));
        if (kind != TICK) {
            nonTickEvents++;
        }
    }

    private void advanceTo(long t) {
        busyGpuMillis += (double) busyGpus * (t - lastTime);
        infra.advance(t);
        now = t;
        lastTime = t;
    }

    private void runRound() {
        long t0 = System.nanoTime();
        io.fairway.core.RoundResult r = scheduler.runRound();
        lastRoundDecisions = r.decisions().size();
        if (!leases) {
            leases = !r.leaseRenewals().isEmpty();
            for (Decision d : r.decisions()) {
                leases |= d instanceof Admit a && a.leaseExpiresAtMillis() != Admit.NO_LEASE;
            }
        }
        lastRenewals = r.leaseRenewals();
        roundNanos += System.nanoTime() - t0;
        rounds++;
    }

    private void recordState() {
        long[] last = presentSteps.get(presentSteps.size() - 1);
        if (last[1] != present) {
            if (last[0] == now) {
                last[1] = present;
            } else {
                presentSteps.add(new long[] {now, present});
            }
        }
        java.util.Set<String> waiting = new java.util.TreeSet<>();
        if (infra.hasPools()) {
            for (io.fairway.core.snapshot.Provisioning.Request r : scheduler.clusters().pendingNodeRequests()) {
                waiting.addAll(r.jobs());
            }
        }
        infra.record(now, waiting);
        TimelinePoint p = new TimelinePoint(now, busyGpus, pending, running);
        if (timeline.isEmpty() || !sameState(timeline.get(timeline.size() - 1), p)) {
            timeline.add(p);
        }
    }

    private static boolean sameState(TimelinePoint a, TimelinePoint b) {
        return a.busyGpus() == b.busyGpus() && a.pendingJobs() == b.pendingJobs() && a.runningJobs() == b.runningJobs();
    }

    private void scheduleTick() {
        if (options.roundIntervalSeconds() <= 0 || tickScheduled || pending == 0) {
            return;
        }
        if (running > 0 || nonTickEvents > 0 || lastRoundDecisions > 0) {
            long step = Math.max(1, Math.round(options.roundIntervalSeconds() * 1000));
            push(now + step, TICK, null, 0);
            tickScheduled = true;
        }
    }

    private void applyAction(ClusterAction a) {
        LOG.debug("t={}s {}", now / 1000.0, a.describe());
        if (options.recordEvents()) {
            actuations.add(new ActuationRecord(now, "Action", null, a.describe()));
        }
        a.applyTo(scheduler);
    }

    /** Schedules a round at each running job's lease expiry, so lease-based policies decide on time. */
    private void watchLeases() {
        if (!leases) {
            return;
        }
        if (leaseShortcuts && lastRoundDecisions == 0 && !faults.any()) {
            watchRenewedLeases();
            return;
        }
        for (JobTrack t : runningTracks.values()) {
            Admit a = scheduler.status(t.job.id()).map(JobStatus::admission).orElse(null);
            watchLease(t, a == null ? Admit.NO_LEASE : a.leaseExpiresAtMillis());
        }
    }

    /**
     * For tests: after every round, look up the lease of every running job in its status (the plain form that
     * {@link #watchRenewedLeases} shortens).
     *
     * @return this
     */
    SimulationRun everyLeaseLookedUp() {
        leaseShortcuts = false;
        return this;
    }

    /**
     * {@link #watchLeases} after a round that started, stopped and resized nothing: only the leases it renewed can have
     * changed, so only those jobs are looked at (in the same order, so events are queued alike). Each new expiry is the
     * one the round's result reports: the engine applied exactly those ({@code RoundResult.leaseRenewals}) and nothing
     * else changed an admission in such a round, so the job's status need not be read back.
     */
    private void watchRenewedLeases() {
        if (lastRenewals.isEmpty()) {
            return;
        }
        renewedOnlyWatches++;
        List<JobTrack> renewed = new ArrayList<>(lastRenewals.size());
        for (String id : lastRenewals.keySet()) {
            JobTrack t = tracks.get(id);
            if (t != null && t.running) {
                renewed.add(t);
            }
        }
        renewed.sort(Comparator.comparingInt(t -> t.index));
        for (JobTrack t : renewed) {
            watchLease(t, lastRenewals.get(t.job.id()));
        }
    }

    /** Queues a round at a running job's lease expiry, unless it has none, it is past or one is queued for it. */
    private void watchLease(JobTrack t, long lease) {
        if (lease != Admit.NO_LEASE && lease > now && lease != t.leaseWake) {
            t.leaseWake = lease;
            push(lease, LEASE, t, t.runId);
        }
    }

    private boolean leaseExpires(JobTrack t, long runId) {
        return t.running && t.runId == runId && t.leaseWake == now;
    }

    private boolean complete(JobTrack t, long runId) {
        if (!t.running || t.runId != runId) {
            return false; // stale: the job was preempted or resized since
        }
        stop(t);
        t.kept = t.workMillis;
        t.completion = now;
        lastFinish = now;
        finished++;
        present--;
        scheduler.reportFinished(t.job.id());
        return true;
    }

    private void stop(JobTrack t) {
        t.running = false;
        runningTracks.remove(t.index);
        t.leaseWake = -1;
        t.runId++;
        busyGpus -= t.gpus;
        t.gpus = 0;
        running--;
        infra.release(t.placement);
        t.placement = null;
    }

    // ---------------------------------------------------------------- the actuator

    private void actuate(List<Decision> decisions) {
        Decision.Handler simulated = new Decision.Handler(this::admit, this::preempt, this::resize, nodes::provision, dp -> {
            record("Deprovision", null, dp.node() + ": " + dp.reason());
            nodes.deprovisioned(dp.node());
        });
        for (Decision d : decisions) {
            d.applyTo(simulated);
        }
    }

    void record(String kind, String job, String detail) {
        if (options.recordEvents()) {
            actuations.add(new ActuationRecord(now, kind, job, detail));
            if (kind.startsWith("Actuator")) {
                // the actuator's faults also go to the event log, next to the engine's REQUEUED when it gives up
                String type = "ACTUATOR_" + kind.substring("Actuator".length()).replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
                events.add(new EventRecord(policy, now, job, type, detail));
            }
        }
    }

    private void admit(Admit a) {
        JobTrack t = tracks.get(a.jobId());
        if (t == null || t.running || actuator.isStarting(a.jobId())) {
            LOG.warn("t={}s: Admit for job {} that is {}", now / 1000.0, a.jobId(), t == null ? "unknown" : "already running");
            return;
        }
        if (!faults.any()) {
            start(t, a.placement(), a.clusterQueue(), 1);
            return;
        }
        actuator.admit(t, a);
    }

    /** Starts a job on a placement and reports it started. */
    void start(JobTrack t, Placement p, String clusterQueue, int attempt) {
        t.running = true;
        runningTracks.put(t.index, t);
        t.runId++;
        t.speed = speed(t, p);
        t.gpus = p.gpuCount();
        t.placement = p;
        infra.place(p, t.job.gpus(), true);
        busyGpus += t.gpus;
        running++;
        pending--;
        if (t.firstStart < 0) {
            t.firstStart = now;
        }
        Checkpointing c = t.job.spec().checkpointing();
        long restore = c != null && t.kept > 0 ? Math.round(c.restoreCostSeconds() * 1000) : 0;
        t.banked = 0;
        t.segmentStart = now;
        t.restoreUntil = now + restore;
        scheduleCompletion(t);
        if (options.recordEvents()) { // the text is made only when it is kept: it was a tenth of a whole trace's bookkeeping
            record("Admit", t.job.id(), clusterQueue + " on " + p.nodes() + ", " + p.members().size() + " members (" + p.locality() + ", speed "
                    + String.format(java.util.Locale.ROOT, "%.3f", t.speed) + ")" + (attempt > 1 ? " at attempt " + attempt : ""));
        }
        scheduler.reportStarted(t.job.id());
    }

    private double speed(JobTrack t, Placement p) {
        double s = (double) p.members().size() / t.requestedMembers * p.throughputFactor();
        if (!(s > 0)) {
            LOG.warn("t={}s: job {} placed with speed {}; treating it as 1e-6", now / 1000.0, t.job.id(), s);
            return 1e-6;
        }
        return s;
    }

    private void scheduleCompletion(JobTrack t) {
        double remaining = t.workMillis - t.kept - t.banked;
        long start = Math.max(t.segmentStart, t.restoreUntil);
        long end = start + Math.max(0, (long) Math.ceil(remaining / t.speed - 1e-9));
        push(end, COMPLETION, t, t.runId);
    }

    private void resize(Resize r) {
        JobTrack t = tracks.get(r.jobId());
        if (actuator.resizeStart(r.jobId(), r.placement())) {
            return; // not started yet: the next attempt starts it at the new size
        }
        if (t == null || !t.running) {
            return;
        }
        t.leaseWake = -1; // the resized run gets a new run id: look at its lease again
        t.banked += Math.max(0, now - Math.max(t.segmentStart, t.restoreUntil)) * t.speed;
        t.segmentStart = now;
        busyGpus -= t.gpus;
        infra.release(t.placement);
        t.placement = r.placement();
        infra.place(r.placement(), t.job.gpus(), false);
        t.gpus = r.placement().gpuCount();
        busyGpus += t.gpus;
        t.speed = speed(t, r.placement());
        t.runId++;
        scheduleCompletion(t);
        record("Resize", t.job.id(), r.podSet() + " -> " + r.targetCount() + " members");
    }

    private void preempt(Preempt p) {
        JobTrack t = tracks.get(p.jobId());
        if (actuator.dropStart(p.jobId())) {
            // never started: nothing runs to stop; the pending retry is dropped (a cancellation is counted by onEvent)
            record("Preempt", p.jobId(), p.reason() + " (before the actuator managed to start it)");
            return;
        }
        if (t == null || !t.running) {
            return;
        }
        double done = t.progressAt(now);
        Checkpointing c = t.job.spec().checkpointing();
        double kept = t.kept;
        if (c != null) {
            double interval = c.intervalSeconds() * 1000.0;
            kept = Math.max(t.kept, Math.floor(done / interval) * interval);
        }
        t.lost += done - kept;
        if (nodes.interrupting() != null) {
            infra.interruptionLoss(t.job.id(), nodes.interrupting(), done - kept, t.gpus, c == null ? 0 : c.intervalSeconds());
        }
        t.kept = kept;
        stop(t);
        t.banked = 0;
        JobState state = scheduler.status(t.job.id()).map(JobStatus::state).orElse(JobState.PENDING);
        if (state == JobState.CANCELLED) {
            t.cancelled = true;
            t.completion = -1;
            lastFinish = now;
            finished++;
            present--;
            record("Cancel", t.job.id(), p.reason());
            return;
        }
        t.preemptions++;
        preemptions++;
        pending++;
        if (options.recordEvents()) {
            record("Preempt", t.job.id(), p.reason() + (c != null ? "; resumes at " + Math.round(kept / 1000) + " s of work" : "; restarts"));
        }
        if (!state.isTerminal()) {
            scheduler.reportProgress(t.job.id(), Math.min(1.0, kept / t.workMillis));
        }
    }

    // ---------------------------------------------------------------- nodes

    /**
     * Schedules a round when the scheduler next has something to do by itself: the time its policy asked for
     * ({@code PolicyContext.wakeAt}), consolidation, leases, admission checks.
     */
    private void watchWakeups() {
        java.util.OptionalLong w = scheduler.nextWakeupMillis(CHECK_RETRY_MILLIS);
        if (w.isPresent() && w.getAsLong() > now && (queue.isEmpty() || queue.peek().time() > w.getAsLong()) && wakes.add(w.getAsLong())) {
            // a round runs at the next queued event anyway and looks again then
            push(w.getAsLong(), WAKE, null, 0);
        }
    }

    // ---------------------------------------------------------------- listener

    private void onEvent(SchedulerEvent e) {
        if (e.type() == EventType.CANCELLED && e.jobId() != null) {
            JobTrack t = tracks.get(e.jobId());
            if (t != null && !t.running && !t.cancelled && t.completion < 0) {
                // A pending job was cancelled: it leaves the queue (a running one is handled by its Preempt).
                t.cancelled = true;
                lastFinish = now;
                pending--;
                finished++;
                present--;
            }
        }
        if (options.recordEvents()) {
            events.add(new EventRecord(policy, e.timeMillis(), e.jobId(), e.type().name(), e.reason()));
        }
    }
}

package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.InvalidSpecException;
import io.fairway.api.event.EventType;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.testkit.FairwayArbitraries.JobTemplate;
import io.fairway.testkit.FairwayArbitraries.NodeTemplate;
import io.fairway.testkit.FairwayArbitraries.World;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Submissions (single and batched, some batches deliberately invalid), cancellations and node changes (loss,
 * addition, cordon) from several threads while another thread runs rounds and reports starts and finishes: no
 * operation is lost, duplicated or half-applied, and once the churn stops every job that was not cancelled runs to
 * completion.
 */
class ConcurrencyStressTest {

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void concurrentSubmissionsCancellationsAndClusterChangesWhileRoundsRun() throws Exception {
        World world = FairPolicyConformance.fairWorld(3);
        ConformanceHarness h = new ConformanceHarness(world, () -> BuiltInPolicies.named("fair-share-over-time"), 11);
        Scheduler s = h.scheduler;
        Set<String> accepted = ConcurrentHashMap.newKeySet();
        Set<String> rejectedBatchIds = ConcurrentHashMap.newKeySet();
        Set<String> cancelled = ConcurrentHashMap.newKeySet();
        AtomicBoolean churn = new AtomicBoolean(true);
        // every job's events, in the order the listener received them
        Map<String, List<EventType>> eventsByJob = new ConcurrentHashMap<>();
        s.addListener(e -> {
            // a slow listener widens any window between a change and its delivery
            java.util.concurrent.locks.LockSupport.parkNanos(e.type() == EventType.SUBMITTED ? 100_000 : 10_000);
            if (e.jobId() != null) {
                eventsByJob.computeIfAbsent(e.jobId(), k -> java.util.Collections.synchronizedList(new ArrayList<>())).add(e.type());
            }
        });
        List<String> violations = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        int submitters = 3;
        int perSubmitter = 200;
        for (int t = 0; t < submitters; t++) {
            int thread = t;
            workers.add(pool.submit(() -> {
                go.await();
                Random r = new Random(thread);
                for (int i = 0; i < perSubmitter; i++) {
                    String id = "t" + thread + "-" + i;
                    if (i % 10 == 9) {
                        // a batch whose last job repeats the first id: nothing of it may be applied
                        List<JobSpec> bad = List.of(job(id + "-a", r, world), job(id + "-b", r, world), job(id + "-a", r, world));
                        try {
                            s.submitAll(bad);
                        } catch (InvalidSpecException e) {
                            rejectedBatchIds.add(id + "-a");
                            rejectedBatchIds.add(id + "-b");
                        }
                    } else if (i % 5 == 0) {
                        List<JobSpec> batch = List.of(job(id + "-a", r, world), job(id + "-b", r, world));
                        s.submitAll(batch);
                        accepted.add(id + "-a");
                        accepted.add(id + "-b");
                    } else {
                        s.submit(job(id, r, world));
                        accepted.add(id);
                    }
                }
                return null;
            }));
        }
        workers.add(pool.submit(() -> {
            go.await();
            Random r = new Random(99);
            while (churn.get()) {
                List<String> ids = new ArrayList<>(accepted);
                if (!ids.isEmpty()) {
                    String id = ids.get(r.nextInt(ids.size()));
                    if (s.cancel(id)) {
                        cancelled.add(id);
                    }
                }
                Thread.sleep(1);
            }
            return null;
        }));
        workers.add(pool.submit(() -> {
            go.await();
            int n = 0;
            while (churn.get()) {
                String name = "extra-" + n++;
                s.clusters().addNode(new NodeTemplate("pcie-4", 64, 512, n % 2, false).build(name));
                s.clusters().cordon("n0", n % 2 == 0);
                Thread.sleep(2);
                s.clusters().removeNode(name);
            }
            s.clusters().cordon("n0", false);
            return null;
        }));
        go.countDown();
        int rounds = 0;
        while (!workers.subList(0, submitters).stream().allMatch(Future::isDone)) {
            roundAndReport(s);
            violations.addAll(s.checkInvariants()); // throughout, while the other threads keep changing the state
            rounds++;
        }
        churn.set(false);
        for (Future<?> f : workers) {
            f.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // nothing lost, nothing duplicated, nothing half-applied
        List<String> ids = s.jobs().all().stream().map(JobStatus::id).toList();
        assertThat(ids).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(accepted);
        assertThat(rejectedBatchIds).hasSize(submitters * (perSubmitter / 10) * 2).noneMatch(ids::contains);
        assertThat(s.checkInvariants()).isEmpty();
        for (String id : cancelled) {
            assertThat(s.status(id).orElseThrow().state()).as("cancelled %s", id).isEqualTo(JobState.CANCELLED);
        }

        // once the churn stops, every job not cancelled runs to completion exactly once
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (s.jobs().all().stream().anyMatch(j -> !j.state().isTerminal()) && System.nanoTime() < deadline) {
            roundAndReport(s);
            violations.addAll(s.checkInvariants());
            rounds++;
        }
        assertThat(violations).as("invariant violations found after some of %d rounds", rounds).isEmpty();
        Map<JobState, Long> byState = new java.util.EnumMap<>(JobState.class);
        s.jobs().all().forEach(j -> byState.merge(j.state(), 1L, Long::sum));
        assertThat(byState.keySet()).as("final states after %d rounds: %s", rounds, byState).containsOnly(JobState.SUCCEEDED, JobState.CANCELLED);
        assertThat(byState.getOrDefault(JobState.CANCELLED, 0L)).isEqualTo(cancelled.size());
        assertThat(byState.get(JobState.SUCCEEDED) + byState.getOrDefault(JobState.CANCELLED, 0L)).isEqualTo(accepted.size());
        assertThat(s.checkInvariants()).isEmpty();

        // per job, events arrive in the order the state changed: SUBMITTED first, nothing after the terminal event,
        // every transition from the state the previous event left the job in
        List<String> outOfOrder = new ArrayList<>();
        for (JobStatus j : s.jobs().all()) {
            List<EventType> evs = List.copyOf(eventsByJob.getOrDefault(j.id(), List.of()));
            String problem = replay(evs);
            if (problem != null) {
                outOfOrder.add(j.id() + ": " + problem + " in " + evs);
            } else if (evs.get(evs.size() - 1) != (j.state() == JobState.SUCCEEDED ? EventType.SUCCEEDED : EventType.CANCELLED)) {
                outOfOrder.add(j.id() + ": last event " + evs.get(evs.size() - 1) + " but the job is " + j.state());
            }
        }
        assertThat(outOfOrder).as("jobs whose events arrived out of order (of %d)", s.jobs().all().size()).isEmpty();
        for (String id : rejectedBatchIds) {
            assertThat(eventsByJob).as("no event for %s of a refused batch", id).doesNotContainKey(id);
        }
    }

    /** @return null when the events follow the job state machine, else what broke it */
    private static String replay(List<EventType> events) {
        String state = "none";
        for (int i = 0; i < events.size(); i++) {
            EventType e = events.get(i);
            String next = switch (e) {
                case SUBMITTED -> state.equals("none") ? "pending" : null;
                case PENDING -> state.equals("pending") ? "pending" : null;
                case ADMITTED -> state.equals("pending") ? "admitted" : null;
                case STARTED -> state.equals("admitted") ? "running" : null;
                case PREEMPTED, REQUEUED -> state.equals("admitted") || state.equals("running") ? "pending" : null;
                case RESIZED -> state.equals("admitted") || state.equals("running") ? state : null;
                case PRIORITY_CHANGED -> !state.equals("none") && !state.equals("done") ? state : null;
                case SUCCEEDED, FAILED -> state.equals("admitted") || state.equals("running") ? "done" : null;
                case CANCELLED -> !state.equals("none") && !state.equals("done") ? "done" : null;
                default -> state;
            };
            if (next == null) {
                return e + " at " + i + " while " + state;
            }
            state = next;
        }
        return state.equals("none") ? "no events" : null;
    }

    private static void roundAndReport(Scheduler s) {
        s.runRound();
        for (JobStatus j : s.jobs().all()) {
            if (j.state() == JobState.ADMITTED) {
                s.reportStarted(j.id());
            } else if (j.state() == JobState.RUNNING) {
                s.reportFinished(j.id());
            }
        }
    }

    private static JobSpec job(String id, Random r, World world) {
        int gpus = List.of(1, 2, 4).get(r.nextInt(3));
        return new JobTemplate(r.nextInt(3), r.nextInt(4), List.of(PodSet.of("ps0", 1 + r.nextInt(2),
                Resources.builder().gpus(gpus).cpu(2).memoryGiB(8).build()))).build(id, world);
    }
}

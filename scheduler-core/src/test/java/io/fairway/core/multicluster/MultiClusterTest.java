package io.fairway.core.multicluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.decision.Admit;
import io.fairway.api.event.EventType;
import io.fairway.api.job.JobSpec;
import io.fairway.api.job.JobState;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.EventLog;
import io.fairway.core.ExecutorHub;
import io.fairway.core.Scheduler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One engine, several clusters: pull-based executors, cluster loss, rejoin with epochs, job set operations. */
class MultiClusterTest {
    private final AtomicLong now = new AtomicLong();

    private Scheduler scheduler(ExecutorHub hub) {
        Scheduler.Builder b = Scheduler.builder().clock(now::get).actuator(hub).policy("best-effort-fifo")
                .flavor(ResourceFlavor.of("default"))
                .clusterQueue(ClusterQueue.builder("cq").quota("default", Resources.builder().gpus(64).build()).build())
                .localQueue(new LocalQueue("default", "q", "cq"));
        for (String c : new String[] {"eu", "us"}) {
            b.node(Node.builder(c + "-1").cluster(c).gpus(GpuTopology.nvSwitch8("H100")).build());
        }
        Scheduler s = b.build();
        hub.attach(s);
        hub.register("eu");
        hub.register("us");
        return s;
    }

    private static JobSpec job(String id, String jobSet, int gpus) {
        return JobSpec.builder(id).queue("q").jobSet(jobSet).members(1, Resources.builder().gpus(gpus).build()).build();
    }

    @Test
    void executorsPullTheirClustersWorkAndUnackedWorkIsOfferedAgain() {
        ExecutorHub hub = new ExecutorHub(now::get, 10_000, 10, 60_000);
        Scheduler s = scheduler(hub);
        s.submit(job("a", "set", 8));
        s.submit(job("b", "set", 8));
        s.runRound();
        ExecutorHub.Poll eu = hub.poll("eu", 10);
        ExecutorHub.Poll us = hub.poll("us", 10);
        assertThat(eu.items()).hasSize(1);
        assertThat(us.items()).hasSize(1);
        assertThat(eu.items().get(0).decision()).isInstanceOf(Admit.class);
        // not acknowledged: offered again after the timeout, not before
        assertThat(hub.poll("eu", 10).items()).isEmpty();
        now.set(10_000);
        assertThat(hub.poll("eu", 10).items()).extracting(ExecutorHub.WorkItem::id).containsExactly(eu.items().get(0).id());
        assertThat(hub.ack("eu", eu.items().get(0).id())).isTrue();
        assertThat(hub.ack("eu", eu.items().get(0).id())).isFalse(); // a late duplicate
        now.set(30_000);
        assertThat(hub.poll("eu", 10).items()).isEmpty();
    }

    @Test
    void aLostClusterIsJobsGoElsewhereAndTheRejoiningExecutorStopsItsStaleRun() {
        ExecutorHub hub = new ExecutorHub(now::get, 10_000, 10, 60_000);
        Scheduler s = scheduler(hub);
        s.submit(job("a", "set", 8));
        s.runRound();
        String first = s.clusters().clusterOf("a");
        String other = first.equals("eu") ? "us" : "eu";
        ExecutorHub.WorkItem w = hub.poll(first, 10).items().get(0);
        assertThat(s.reportStarted("a", w.epoch())).isTrue();
        hub.ack(first, w.id());
        // the first cluster goes silent; the other keeps polling
        now.set(30_000);
        hub.poll(other, 10);
        now.set(61_000);
        hub.poll(other, 10);
        assertThat(hub.checkLiveness()).containsExactly(first);
        assertThat(s.status("a").orElseThrow().state()).isEqualTo(JobState.PENDING);
        s.runRound();
        assertThat(s.clusters().clusterOf("a")).isEqualTo(other);
        ExecutorHub.WorkItem w2 = hub.poll(other, 10).items().get(0);
        assertThat(w2.epoch()).isGreaterThan(w.epoch());
        assertThat(s.reportStarted("a", w2.epoch())).isTrue();
        // the lost executor comes back, still running its old copy: told to stop it; its stale report is refused
        assertThat(hub.poll(first, 10).rejoinRequired()).isTrue();
        List<String> stop = hub.rejoin(first, List.of(Node.builder(first + "-1").cluster(first).gpus(GpuTopology.nvSwitch8("H100")).build()),
                Map.of("a", w.epoch()));
        assertThat(stop).containsExactly("a");
        assertThat(s.reportFinished("a", w.epoch())).isFalse();
        assertThat(s.status("a").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(s.checkInvariants()).isEmpty();
    }

    @Test
    void jobSetOperationsAndResumableEventStream() {
        ExecutorHub hub = new ExecutorHub(now::get, 10_000, 10, 60_000);
        Scheduler s = scheduler(hub);
        EventLog log = new EventLog();
        s.addListener(log);
        s.submit(job("a", "sweep", 8));
        s.submit(job("b", "sweep", 8));
        s.submit(job("c", "sweep", 8));
        s.submit(job("x", "other", 1));
        s.runRound();
        List<EventLog.Entry> first = log.read("sweep", 0, 4);
        assertThat(first).hasSize(4).allMatch(e -> e.event().jobSet().equals("sweep"));
        long cursor = first.get(first.size() - 1).sequence();
        assertThat(s.jobs().setJobSetPriority("sweep", 5)).isEqualTo(3);
        assertThat(s.jobs().cancelJobSet("sweep")).containsExactly("a", "b", "c");
        List<EventLog.Entry> rest = log.read("sweep", cursor, 100);
        assertThat(rest).extracting(e -> e.event().type()).contains(EventType.PRIORITY_CHANGED, EventType.CANCELLED);
        assertThat(rest.get(0).sequence()).isGreaterThan(cursor);
        assertThat(s.status("x").orElseThrow().state()).isNotEqualTo(JobState.CANCELLED);
        // cordon the queue: nothing new is admitted
        s.queues().stopClusterQueue("cq", true);
        s.submit(job("late", "other", 1));
        s.runRound();
        assertThat(s.status("late").orElseThrow().state()).isEqualTo(JobState.PENDING);
        s.queues().stopClusterQueue("cq", false);
        s.runRound();
        assertThat(s.status("late").orElseThrow().state()).isEqualTo(JobState.ADMITTED);
    }
}

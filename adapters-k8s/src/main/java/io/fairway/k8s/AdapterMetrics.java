package io.fairway.k8s;

import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import io.fairway.api.model.LocalQueue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The adapter's metrics, through Micrometer (Prometheus names in brackets):
 *
 * <ul>
 *   <li>{@code fairway.pending.jobs} [{@code fairway_pending_jobs}]: pending Jobs per LocalQueue, tagged
 *       {@code namespace}, {@code local_queue} and {@code cluster_queue}</li>
 *   <li>{@code fairway.admitted.jobs} [{@code fairway_admitted_jobs}]: Jobs holding quota per ClusterQueue</li>
 *   <li>{@code fairway.admission.wait} [{@code fairway_admission_wait_seconds}]: time from a Job's creation to its
 *       admission</li>
 *   <li>{@code fairway.round.duration} [{@code fairway_round_duration_seconds}]: wall time of each scheduling round</li>
 *   <li>{@code fairway.reconcile.errors} [{@code fairway_reconcile_errors_total}]: reconciles that failed</li>
 *   <li>{@code fairway.leader} [{@code fairway_leader}]: 1 while this replica leads</li>
 * </ul>
 */
public final class AdapterMetrics {
    private final MultiGauge pending;
    private final MultiGauge admitted;
    private final Map<Tags, AtomicInteger> pendingValues = new HashMap<>();
    private final Map<Tags, AtomicInteger> admittedValues = new HashMap<>();
    private final Timer admissionWait;
    private final Timer roundDuration;
    private final Counter errors;
    private final AtomicInteger leader = new AtomicInteger();

    /** @param registry where the meters are registered */
    public AdapterMetrics(MeterRegistry registry) {
        pending = MultiGauge.builder("fairway.pending.jobs").description("Pending Jobs per LocalQueue").register(registry);
        admitted = MultiGauge.builder("fairway.admitted.jobs").description("Jobs holding quota per ClusterQueue").register(registry);
        admissionWait = Timer.builder("fairway.admission.wait").description("Time from a Job's creation to its admission")
                .publishPercentileHistogram().register(registry);
        roundDuration = Timer.builder("fairway.round.duration").description("Wall time of a scheduling round").register(registry);
        errors = Counter.builder("fairway.reconcile.errors").description("Reconciles that failed").register(registry);
        registry.gauge("fairway.leader", leader);
    }

    void admitted(long waitMillis) {
        admissionWait.record(Duration.ofMillis(Math.max(0, waitMillis)));
    }

    void round(long nanos) {
        roundDuration.record(Duration.ofNanos(nanos));
    }

    void error() {
        errors.increment();
    }

    void leading(boolean leading) {
        leader.set(leading ? 1 : 0);
    }

    /**
     * Refreshes the per-queue gauges from the engine's jobs. Each row keeps one value holder for as long as its queue
     * exists, and only rows of queues gone are removed: re-registering every row on every pass (as before) let a scrape
     * that overlapped a pass miss the gauges altogether.
     */
    void queues(List<JobStatus> jobs, Map<String, LocalQueue> localQueues) {
        Map<String, Integer> pend = new TreeMap<>();
        Map<String, Integer> adm = new TreeMap<>();
        for (LocalQueue lq : localQueues.values()) {
            pend.put(lq.key(), 0);
            adm.putIfAbsent(lq.clusterQueue(), 0);
        }
        for (JobStatus j : jobs) {
            if (j.state() == JobState.PENDING) {
                pend.merge(j.spec().localQueueKey(), 1, Integer::sum);
            } else if (j.state().holdsResources() && j.admission() != null) {
                adm.merge(j.admission().clusterQueue(), 1, Integer::sum);
            }
        }
        Map<Tags, Integer> pendingRows = new LinkedHashMap<>();
        pend.forEach((key, n) -> {
            LocalQueue lq = localQueues.get(key);
            int slash = key.indexOf('/');
            pendingRows.put(Tags.of("namespace", key.substring(0, slash), "local_queue", key.substring(slash + 1),
                    "cluster_queue", lq == null ? "" : lq.clusterQueue()), n);
        });
        Map<Tags, Integer> admittedRows = new LinkedHashMap<>();
        adm.forEach((cq, n) -> admittedRows.put(Tags.of("cluster_queue", cq), n));
        update(pending, pendingValues, pendingRows);
        update(admitted, admittedValues, admittedRows);
    }

    /** Sets each row's value, registers the rows new since the last call and removes the rows gone. */
    private static void update(MultiGauge gauge, Map<Tags, AtomicInteger> values, Map<Tags, Integer> rows) {
        values.keySet().retainAll(rows.keySet());
        List<MultiGauge.Row<?>> all = new ArrayList<>();
        rows.forEach((tags, n) -> {
            AtomicInteger v = values.computeIfAbsent(tags, t -> new AtomicInteger());
            v.set(n);
            all.add(MultiGauge.Row.of(tags, v, AtomicInteger::get));
        });
        gauge.register(all, false);
    }
}

package io.fairway.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.model.LocalQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-queue gauges stay registered from pass to pass, so a scrape that overlaps a pass still sees them. */
class AdapterMetricsTest {
    private static final LocalQueue A = new LocalQueue("team-a", "gpu", "cq-a");
    private static final LocalQueue B = new LocalQueue("team-b", "gpu", "cq-b");

    @Test
    void aPassUpdatesTheGaugesInPlaceAndRemovesOnlyTheRowsOfQueuesGone() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        AdapterMetrics m = new AdapterMetrics(registry);
        m.queues(List.of(), Map.of(A.key(), A, B.key(), B));
        Gauge pendingA = registry.find("fairway.pending.jobs").tag("local_queue", "gpu").tag("namespace", "team-a").gauge();
        Gauge admittedA = registry.find("fairway.admitted.jobs").tag("cluster_queue", "cq-a").gauge();
        assertThat(pendingA).isNotNull();
        assertThat(admittedA).isNotNull();

        m.queues(List.of(), Map.of(A.key(), A));
        assertThat(registry.find("fairway.pending.jobs").tag("namespace", "team-a").gauge()).as("not re-registered").isSameAs(pendingA);
        assertThat(registry.find("fairway.admitted.jobs").tag("cluster_queue", "cq-a").gauge()).isSameAs(admittedA);
        assertThat(registry.find("fairway.pending.jobs").tag("namespace", "team-b").gauge()).as("queue gone").isNull();
        assertThat(registry.find("fairway.admitted.jobs").tag("cluster_queue", "cq-b").gauge()).isNull();
        assertThat(registry.scrape()).contains("fairway_pending_jobs{cluster_queue=\"cq-a\",local_queue=\"gpu\",namespace=\"team-a\"} 0.0");
    }
}

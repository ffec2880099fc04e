package io.fairway.store;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link JobStoreLeadershipTest}'s cases on PostgreSQL, each in a schema of its own (needs {@code $FAIRWAY_PG_URL};
 * failed without it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1).
 */
class JobStoreLeadershipPostgresTest extends JobStoreLeadershipTest {
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private final String run = "l" + Long.toString(System.nanoTime(), 36);

    @BeforeEach
    void needsPostgres() {
        String url = System.getenv("FAIRWAY_PG_URL");
        if ("1".equals(System.getenv("FAIRWAY_REQUIRE_POSTGRES")) && (url == null || url.isBlank())) {
            throw new AssertionError("FAIRWAY_REQUIRE_POSTGRES=1 but FAIRWAY_PG_URL is not set");
        }
        assumeThat(url).as("FAIRWAY_PG_URL is not set: the PostgreSQL store is not tested").isNotBlank();
    }

    @Override
    JobStore.Settings settings(String name) {
        String url = System.getenv("FAIRWAY_PG_URL");
        return JobStore.Settings.parse(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + run + "_" + name + "_" + SCHEMAS.incrementAndGet());
    }
}

package io.fairway.store;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stores on PostgreSQL for the store tests, each in a schema of its own. Needs {@code $FAIRWAY_PG_URL} (e.g.
 * {@code jdbc:postgresql://127.0.0.1:5432/fairway_test?user=fairway&password=fairway}); a test is skipped without it,
 * and failed without it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1 (CI sets both, after starting the server).
 */
final class PostgresSchemas {
    private static final AtomicInteger SCHEMAS = new AtomicInteger();
    private final String run;

    /** @param prefix what this test class's schema names start with */
    PostgresSchemas(String prefix) {
        this.run = prefix + Long.toString(System.nanoTime(), 36);
    }

    /** Skips the calling test without {@code $FAIRWAY_PG_URL}, or fails it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1. */
    static void require() {
        String url = System.getenv("FAIRWAY_PG_URL");
        if ("1".equals(System.getenv("FAIRWAY_REQUIRE_POSTGRES")) && (url == null || url.isBlank())) {
            throw new AssertionError("FAIRWAY_REQUIRE_POSTGRES=1 but FAIRWAY_PG_URL is not set");
        }
        assumeThat(url).as("FAIRWAY_PG_URL is not set: the PostgreSQL store is not tested").isNotBlank();
    }

    /** @return the settings of a fresh, empty store named {@code name}: a new schema on {@code $FAIRWAY_PG_URL} */
    JobStore.Settings settings(String name) {
        String url = System.getenv("FAIRWAY_PG_URL");
        return JobStore.Settings.parse(url + (url.contains("?") ? "&" : "?") + "currentSchema=" + run + "_" + name + "_" + SCHEMAS.incrementAndGet());
    }
}

package io.fairway.store;

import org.junit.jupiter.api.BeforeEach;

/**
 * {@link JobStoreTest}'s cases on PostgreSQL, each in a schema of its own ({@link PostgresSchemas}: needs
 * {@code $FAIRWAY_PG_URL}; failed without it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1).
 */
class JobStorePostgresTest extends JobStoreTest {
    private final PostgresSchemas schemas = new PostgresSchemas("t");

    @BeforeEach
    void needsPostgres() {
        PostgresSchemas.require();
    }

    @Override
    JobStore.Settings settings(String name) {
        return schemas.settings(name);
    }
}

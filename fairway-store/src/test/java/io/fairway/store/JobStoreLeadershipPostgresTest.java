package io.fairway.store;

import org.junit.jupiter.api.BeforeEach;

/**
 * {@link JobStoreLeadershipTest}'s cases on PostgreSQL, each in a schema of its own ({@link PostgresSchemas}: needs
 * {@code $FAIRWAY_PG_URL}; failed without it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1).
 */
class JobStoreLeadershipPostgresTest extends JobStoreLeadershipTest {
    private final PostgresSchemas schemas = new PostgresSchemas("l");

    @BeforeEach
    void needsPostgres() {
        PostgresSchemas.require();
    }

    @Override
    JobStore.Settings settings(String name) {
        return schemas.settings(name);
    }
}

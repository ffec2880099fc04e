package io.fairway.store;

/**
 * {@link JobStoreTest}'s cases on PostgreSQL, each in a schema of its own ({@link PostgresSchemas}: needs
 * {@code $FAIRWAY_PG_URL}; failed without it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1).
 */
class JobStorePostgresTest extends JobStoreTest {
    JobStorePostgresTest() {
        postgres = new PostgresSchemas("t");
    }
}

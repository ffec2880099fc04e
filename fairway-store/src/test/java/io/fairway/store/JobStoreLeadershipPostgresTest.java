package io.fairway.store;

/**
 * {@link JobStoreLeadershipTest}'s cases on PostgreSQL, each in a schema of its own ({@link PostgresSchemas}: needs
 * {@code $FAIRWAY_PG_URL}; failed without it when {@code $FAIRWAY_REQUIRE_POSTGRES} is 1).
 */
class JobStoreLeadershipPostgresTest extends JobStoreLeadershipTest {
    JobStoreLeadershipPostgresTest() {
        postgres = new PostgresSchemas("l");
    }
}

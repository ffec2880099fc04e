package io.fairway.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the store tests open their stores: SQLite files in a temporary folder, or — when a subclass sets
 * {@link #postgres} in its constructor — a PostgreSQL schema of their own (such a test is skipped without a server).
 */
abstract class StoreTestBase {
    @TempDir
    Path dir;
    /** The PostgreSQL schemas the stores are opened in, or null for SQLite files. */
    PostgresSchemas postgres;

    @BeforeEach
    void needsPostgresWhenOnPostgres() {
        if (postgres != null) {
            PostgresSchemas.require();
        }
    }

    /** @return the settings of a fresh, empty store named {@code name} */
    JobStore.Settings settings(String name) {
        return postgres == null ? JobStore.Settings.sqlite(dir.resolve(name + ".db")) : postgres.settings(name);
    }

    /** @return {@code n} jobs {@code namespace/prefix0…}, each with the spec {@code {"n":i}} and a priority given by its index */
    static List<JobStore.NewJob> jobs(String namespace, String prefix, int n, IntUnaryOperator priority) {
        List<JobStore.NewJob> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new JobStore.NewJob(namespace + "/" + prefix + i, priority.applyAsInt(i), "{\"n\":" + i + "}"));
        }
        return out;
    }
}

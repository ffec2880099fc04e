package io.fairway.store;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the store tests open their stores: SQLite files in a temporary folder here; the PostgreSQL subclasses
 * ({@link PostgresSchemas}) open a schema of their own instead.
 */
abstract class StoreTestBase {
    @TempDir
    Path dir;

    /** @return the settings of a fresh, empty store named {@code name} */
    JobStore.Settings settings(String name) {
        return JobStore.Settings.sqlite(dir.resolve(name + ".db"));
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

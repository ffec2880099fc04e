package io.fairway.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** Base of the tests that write the input files they read (scenarios, configurations, traces) into a temporary directory. */
public abstract class TempFiles {
    /** The test's temporary directory, new for every test. */
    @TempDir
    protected Path dir;

    /**
     * @param name the file's name in {@link #dir}
     * @param text its content
     * @return the written file
     * @throws IOException if it cannot be written
     */
    protected Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    /**
     * Writes {@code s.yaml}: everything before the job list, then {@code jobs:} and the entries.
     *
     * @param head the scenario's name, cluster and queues sections
     * @param jobs the job entries, indented under {@code jobs:}
     * @return the written file
     * @throws IOException if it cannot be written
     */
    protected Path scenario(String head, String jobs) throws IOException {
        return file("s.yaml", head + "jobs:\n" + jobs);
    }
}

package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.sim.TextFiles;
import io.fairway.sim.config.ClusterConfig;
import io.fairway.sim.trace.TraceFormat;
import io.fairway.sim.trace.TraceFormatException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input files of the command line that are too big, not files, not UTF-8, or carry impossible numbers: each is
 * refused at once with the file named (and the line and column where there is one), and the run exits with an
 * error instead of hanging, crashing or finishing with a misleading warning.
 */
class HostileInputFilesTest {
    @TempDir
    Path dir;

    private static final String NATIVE = "id,submit_seconds,duration_seconds,gpus,queue\n";

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aYamlFileWithOneHugeScalarOrTooManyBytesIsRefusedBeforeParsing() throws Exception {
        // before: one 4 MB scalar took 4.5 s to parse (quadratic), 200 MB more than 180 s
        Path scalar = dir.resolve("scalar.yaml");
        Files.writeString(scalar, "name: ok\ndescription: " + "x".repeat(4 << 20) + "\n");
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--cluster", scalar.toString(), "--no-progress");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("cannot read " + scalar + ":2: line is 4194317 characters long; at most 65536");

        Path big = dir.resolve("big.yaml");
        byte[] lines = ("# " + "y".repeat(1000) + "\n").getBytes(StandardCharsets.UTF_8);
        try (var out = Files.newOutputStream(big)) {
            for (long written = 0; written <= TextFiles.MAX_YAML_BYTES; written += lines.length) {
                out.write(lines);
            }
        }
        assertThatThrownBy(() -> ClusterConfig.load(big)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read " + big + ": is " + Files.size(big) + " bytes; at most 8388608 (8 MiB) are read");
    }

    @Test
    void directoriesMissingFilesAndNonUtf8BytesAreNamedWithTheirLine() throws Exception {
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--cluster", dir.toString(), "--no-progress");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("cannot read " + dir + ": is a directory, not a file").doesNotContain("IOException");

        Path missing = dir.resolve("x.yaml");
        r = FairwayCommandTest.run("simulate", "--cluster", missing.toString(), "--no-progress");
        assertThat(r.err()).contains("cannot read " + missing + ": no such file");

        Path latin1 = dir.resolve("latin1.yaml");
        Files.write(latin1, "clusters:\n  - name: caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        r = FairwayCommandTest.run("simulate", "--cluster", latin1.toString(), "--no-progress");
        assertThat(r.err()).contains("cannot read " + latin1 + ":2:14: not UTF-8 (byte 0xE9)").doesNotContain("Input length");

        Path trace = dir.resolve("latin1.csv");
        Files.write(trace, (NATIVE + "a,0,60,1,q\nb\u00e9,0,60,1,q\n").getBytes(StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(trace)).isInstanceOf(UncheckedIOException.class)
                .hasMessage("cannot read trace " + trace + ":3:2: not UTF-8 (byte 0xE9); save the file as UTF-8");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(dir)).hasMessage("cannot read trace " + dir + ": is a directory, not a file");
    }

    @Test
    void traceValuesBeyondTheSimulatorClockAndNulInIdsAreRefusedAtTheirColumn() throws Exception {
        Path submit = dir.resolve("submit.csv");
        Files.writeString(submit, NATIVE + "a,0,60,1,q\nb,1e300,60,1,q\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(submit)).isInstanceOf(TraceFormatException.class)
                .hasMessage(submit + ":3:2: submit_seconds 1e300 s is beyond what the simulator's clock can represent (at most 1e10 s, about 317 years)");
        Path duration = dir.resolve("duration.csv");
        Files.writeString(duration, NATIVE + "a,0,60,1,q\nb,0,1e300,1,q\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(duration)).hasMessageStartingWith(duration + ":3:3: duration_seconds 1e300 s");
        Path nul = dir.resolve("nul.csv");
        Files.writeString(nul, NATIVE + "a,0,60,1,q\nb\u0000c,0,60,1,q\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(nul)).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(nul + ":3:1: id: job.id must not contain control or invisible characters: U+0000 at index 1");
        // the end to end run the issue saw: exit 0 with an unfinished job, the warning blaming the policy
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--trace", duration.toString(), "--no-progress", "--policy", "strict-fifo");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains(":3:3: duration_seconds 1e300");
    }

    @Test
    void anActuatorTimeoutOutOfRangeSaysWhichRangeIsAccepted() {
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--actuator-timeout", "Infinity", "--no-progress");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("--actuator-timeout must be a number of seconds greater than 0 and at most 1e10 (about 317 years), "
                + "was Infinity");
        r = FairwayCommandTest.run("simulate", "--actuator-backoff", "5,NaN", "--no-progress");
        assertThat(r.err()).contains("--actuator-backoff CAP must be a number of seconds from backoffBaseSeconds (5.0) to 1e10, was NaN");
    }
}

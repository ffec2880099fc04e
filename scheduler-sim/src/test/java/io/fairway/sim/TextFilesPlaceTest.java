package io.fairway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fairway.sim.trace.TraceFormatException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An unreadable file and a bad trace line name their place the same way: file, line and column, in the message and as a {@link TextFiles.Place}. */
class TextFilesPlaceTest {
    @TempDir
    Path dir;

    @Test
    void bothFileErrorsCarryTheirPlace() throws Exception {
        Path latin1 = Files.write(dir.resolve("c.yaml"), "clusters:\n  - name: caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
        TextFiles.UnreadableFileException unreadable = catchThrowableOfType(() -> TextFiles.read(latin1, 1 << 20, 1 << 10),
                TextFiles.UnreadableFileException.class);
        assertThat(unreadable.place()).isEqualTo(new TextFiles.Place(latin1.toString(), 2, 14));
        assertThat(unreadable.getMessage()).startsWith(latin1 + ":2:14: not UTF-8");

        TextFiles.Located bad = new TraceFormatException("t.csv", 3, 2, "gpus \"two\" is not a whole number");
        assertThat(bad.place()).isEqualTo(new TextFiles.Place("t.csv", 3, 2));
        assertThat(bad.file()).isEqualTo("t.csv");
        assertThat(bad.line()).isEqualTo(3);
        assertThat(((Exception) bad).getMessage()).isEqualTo("t.csv:3:2: gpus \"two\" is not a whole number");
        assertThat(new TraceFormatException("t.csv", 0, "is empty").getMessage()).isEqualTo("t.csv: is empty");
    }
}

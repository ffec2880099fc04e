package io.fairway.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The pictures in docs/concepts/img show what the placement really does: each is drawn from a real placement,
 * and this test fails when a committed picture no longer matches. Regenerate them with
 * {@code mvn -o -q -B test -pl scheduler-core -Dtest=TopologyPicturesTest -Dfairway.docs.regenerate=true}.
 */
@Tag("docs")
class TopologyPicturesTest {
    private static final Path IMG = Path.of("..", "docs", "concepts", "img");

    @Test
    void committedPicturesMatchWhatThePlacerDoes() throws IOException {
        boolean regenerate = Boolean.getBoolean("fairway.docs.regenerate");
        if (regenerate) {
            Files.createDirectories(IMG);
        }
        Assumptions.assumeTrue(Files.isDirectory(IMG), "docs/concepts/img is not next to this module");
        for (TopologyPictures.Picture p : TopologyPictures.all()) {
            Path file = IMG.resolve(p.file());
            if (regenerate) {
                Files.writeString(file, p.svg(), StandardCharsets.UTF_8);
            }
            assertThat(file).as("%s: regenerate with -Dfairway.docs.regenerate=true", p.file()).exists();
            assertThat(Files.readString(file, StandardCharsets.UTF_8)).as(p.file()).isEqualTo(p.svg());
        }
    }
}

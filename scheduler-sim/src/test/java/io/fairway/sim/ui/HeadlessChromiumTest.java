package io.fairway.sim.ui;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a developer without a browser is told, and when CI fails instead of skipping. */
class HeadlessChromiumTest {
    @Test
    void aMissingBrowserOrDriverIsNamedWithItsPackage(@TempDir Path dir) throws IOException {
        Path present = Files.createFile(dir.resolve("present"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path absent = dir.resolve("chromium");

        assertThat(HeadlessChromium.unavailable(present, present)).isEmpty();
        assertThat(HeadlessChromium.unavailable(absent, present)).hasValueSatisfying(m -> assertThat(m)
                .contains("the browser " + absent).contains("Debian package chromium;")
                .doesNotContain("the driver").contains("apt-get install chromium chromium-driver"));
        assertThat(HeadlessChromium.unavailable(present, dir.resolve("chromedriver"))).hasValueSatisfying(m -> assertThat(m)
                .contains("the driver " + dir.resolve("chromedriver")).contains("Debian package chromium-driver")
                .doesNotContain("the browser"));
    }

    @Test
    void ciRequiresTheBrowserDevelopersMaySkip() {
        assertThat(HeadlessChromium.browserRequired("1", false)).isTrue();
        assertThat(HeadlessChromium.browserRequired("true", false)).isTrue();
        assertThat(HeadlessChromium.browserRequired(null, true)).isTrue();
        assertThat(HeadlessChromium.browserRequired(null, false)).isFalse();
        assertThat(HeadlessChromium.browserRequired("", false)).isFalse();
        assertThat(HeadlessChromium.browserRequired("0", false)).isFalse();
        assertThat(HeadlessChromium.browserRequired("false", false)).isFalse();
    }
}

package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.spi.PolicyProvider;
import io.fairway.sim.cli.plugin.OldestFirstProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --policy-path} makes third-party policies visible to every subcommand, and names what it cannot load. */
class PolicyPathTest {
    @TempDir
    Path dir;

    private Path jar(String name, String services) throws IOException {
        Path jar = dir.resolve(name);
        try (OutputStream f = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(f)) {
            out.putNextEntry(new JarEntry("META-INF/services/" + PolicyProvider.class.getName()));
            out.write(services.getBytes(StandardCharsets.UTF_8));
            out.closeEntry();
        }
        return jar;
    }

    private Path plugin() throws IOException {
        return jar("oldest-first.jar", "# a comment\n" + OldestFirstProvider.class.getName() + "\n");
    }

    @Test
    void aPolicyOnThePathIsListedAndOnlyThen() throws IOException {
        assertThat(FairwayCommandTest.run("policies").out()).doesNotContain(OldestFirstProvider.NAME);

        FairwayCommandTest.Run r = FairwayCommandTest.run("--policy-path", plugin().toString(), "policies");

        assertThat(r.exit()).isZero();
        assertThat(r.out()).containsPattern(OldestFirstProvider.NAME + " +oldest job first \\(a test plugin\\)").contains("best-effort-fifo");
    }

    @Test
    void demoAndSimulateRunAPolicyFromADirectoryOfJars() throws IOException {
        Path dirOfJars = Files.createDirectories(dir.resolve("plugins"));
        Files.move(plugin(), dirOfJars.resolve("oldest-first.jar"));

        FairwayCommandTest.Run demo = FairwayCommandTest.run("--policy-path", dirOfJars.toString(), "demo", "--jobs", "40", "--no-progress",
                "--no-report", "--out", dir.resolve("out").toString(), "--policy", OldestFirstProvider.NAME + ",strict-fifo");
        FairwayCommandTest.Run simulate = FairwayCommandTest.run("--policy-path", dirOfJars.toString(), "simulate", "--no-progress",
                "--max-simulated-seconds", "600", "--policy", OldestFirstProvider.NAME);

        assertThat(demo.exit()).as(demo.err()).isZero();
        assertThat(demo.out()).containsPattern("(?m)^" + OldestFirstProvider.NAME + " +40 +40 ");
        assertThat(simulate.exit()).as(simulate.err()).isZero();
        assertThat(simulate.out()).containsPattern("(?m)^" + OldestFirstProvider.NAME + " ");
    }

    @Test
    void withoutThePathThePolicyIsUnknown() {
        FairwayCommandTest.Run r = FairwayCommandTest.run("simulate", "--no-progress", "--policy", OldestFirstProvider.NAME);

        assertThat(r.exit()).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(r.err()).contains("unknown policy \"" + OldestFirstProvider.NAME + "\"");
    }

    @Test
    void aJarWhoseProviderCannotBeLoadedIsNamed() throws IOException {
        Path broken = jar("broken.jar", "com.example.MissingProvider\n");

        FairwayCommandTest.Run r = FairwayCommandTest.run("--policy-path", plugin() + java.io.File.pathSeparator + broken, "policies");

        assertThat(r.exit()).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(r.err()).contains("--policy-path: ").contains("broken.jar").contains("cannot load policy provider com.example.MissingProvider")
                .contains("ClassNotFoundException").doesNotContain("\tat ");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aMissingEntryOrAFileThatIsNoJarIsNamed() throws IOException {
        Path text = Files.writeString(dir.resolve("notes.jar"), "not a jar");

        FairwayCommandTest.Run missing = FairwayCommandTest.run("--policy-path", dir.resolve("nowhere.jar").toString(), "policies");
        FairwayCommandTest.Run notJar = FairwayCommandTest.run("--policy-path", text.toString(), "policies");

        assertThat(missing.exit()).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(missing.err()).contains("--policy-path: " + dir.resolve("nowhere.jar") + " does not exist");
        assertThat(notJar.exit()).isEqualTo(FairwayCommand.USER_ERROR);
        assertThat(notJar.err()).contains("--policy-path: " + text + " is not a jar");
    }

    @Test
    void theContextClassLoaderIsRestoredAfterTheRun() throws IOException {
        ClassLoader before = Thread.currentThread().getContextClassLoader();

        FairwayCommandTest.run("--policy-path", plugin().toString(), "policies");

        assertThat(Thread.currentThread().getContextClassLoader()).isSameAs(before);
    }
}

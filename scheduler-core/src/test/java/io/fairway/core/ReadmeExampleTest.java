package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.api.job.JobState;
import io.fairway.api.job.JobStatus;
import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding example of README.md, taken from the README as it is, compiled in a package outside
 * {@code io.fairway} (so it can use only what the project makes public) and run, so the README cannot rot.
 */
class ReadmeExampleTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    void readmeExampleCompilesOutsideTheProjectAndAdmitsTheGangOnOneNode(@TempDir Path dir) throws Exception {
        String source = readmeJavaBlock();
        Matcher pkg = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE).matcher(source);
        assertThat(pkg.find()).as("the README example declares its package").isTrue();
        assertThat(pkg.group(1)).doesNotStartWith("io.fairway");
        Matcher cls = Pattern.compile("public final class (\\w+)").matcher(source);
        assertThat(cls.find()).as("the README example is a public class").isTrue();
        String className = pkg.group(1) + "." + cls.group(1);

        Path src = dir.resolve("src").resolve(pkg.group(1).replace('.', '/')).resolve(cls.group(1) + ".java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, source, StandardCharsets.UTF_8);
        Path out = Files.createDirectories(dir.resolve("classes"));
        // The tests run as the io.fairway.core module, which does not otherwise need the compiler.
        getClass().getModule().addReads(ModuleLayer.boot().findModule("java.compiler").orElseThrow());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean compiled = javac.getTask(diagnostics, null, null,
                compilerOptions(out),
                null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(src.toFile()))
                .call();
        assertThat(compiled).as("javac on the README example:%n%s", diagnostics).isTrue();

        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> example = loader.loadClass(className);
            example.getMethod("main", String[].class).invoke(null, (Object) new String[0]);
            Method run = example.getMethod("runOneRound");
            JobStatus status = (JobStatus) run.invoke(null);
            assertThat(status.state()).isEqualTo(JobState.RUNNING);
            assertThat(status.admission().placement().members()).extracting(m -> m.node() + m.gpus())
                    .containsExactly("node-1[0, 1, 2, 3]", "node-1[4, 5, 6, 7]");
        }
    }

    private static String readmeJavaBlock() throws IOException {
        Path readme = Path.of("..", "README.md");
        assertThat(readme).as("README.md beside the scheduler-core module").exists();
        Matcher block = JAVA_BLOCK.matcher(Files.readString(readme, StandardCharsets.UTF_8));
        assertThat(block.find()).as("README.md has a ```java block").isTrue();
        return block.group(1);
    }

    /** The project's jars as the tests see them: on the module path (the usual case) or the class path. */
    private static List<String> compilerOptions(Path out) {
        List<String> options = new ArrayList<>(List.of("--release", "17", "-Xlint:all", "-Werror", "-proc:none",
                "-d", out.toString(), "-classpath", System.getProperty("java.class.path")));
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isBlank()) {
            options.addAll(List.of("--module-path", modulePath, "--add-modules", "ALL-MODULE-PATH"));
        }
        return options;
    }
}

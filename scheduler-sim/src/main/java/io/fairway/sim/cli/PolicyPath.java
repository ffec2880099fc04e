package io.fairway.sim.cli;

import io.fairway.api.spi.PolicyProvider;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * Third-party policies for the command line: {@code --policy-path PATH} (or {@code FAIRWAY_POLICY_PATH}) names jars
 * and directories, {@code :}-separated (the platform's path separator). A directory of class files is taken as it is;
 * a directory without class files stands for the jars in it. The entries become a class loader, the thread's context
 * class loader, in which {@link io.fairway.core.Policies} finds their {@link PolicyProvider}s by name.
 *
 * <pre>
 * ./fairway --policy-path examples/policy-plugin/target/policy-plugin.jar policies
 * FAIRWAY_POLICY_PATH=/opt/policies ./fairway demo --policy my-policy
 * </pre>
 */
final class PolicyPath {
    /** The environment variable read when {@code --policy-path} is not given. */
    static final String ENVIRONMENT = "FAIRWAY_POLICY_PATH";

    private PolicyPath() {
    }

    /**
     * Makes the policies on {@code path} visible to the current thread ({@code null} or blank: nothing changes).
     *
     * @param path jars and directories, separated by {@link File#pathSeparator}
     * @param origin where the path came from, for messages ({@code --policy-path} or the environment variable)
     * @throws FairwayCommand.UserException naming the entry that is missing, unreadable, not a jar, or whose policy
     *     providers cannot be loaded
     */
    static void install(String path, String origin) {
        if (path == null || path.isBlank()) {
            return;
        }
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                urls.addAll(urlsOf(Path.of(entry.trim()), origin));
            }
        }
        ClassLoader parent = Thread.currentThread().getContextClassLoader();
        URLClassLoader loader = new URLClassLoader("fairway-policy-path", urls.toArray(URL[]::new),
                parent != null ? parent : PolicyPath.class.getClassLoader());
        for (URL u : urls) {
            check(u, loader, origin);
        }
        Thread.currentThread().setContextClassLoader(loader);
    }

    private static List<URL> urlsOf(Path entry, String origin) {
        if (!Files.exists(entry)) {
            throw new FairwayCommand.UserException(origin + ": " + entry + " does not exist");
        }
        if (Files.isDirectory(entry)) {
            List<Path> jars;
            boolean classes;
            try (Stream<Path> s = Files.list(entry)) {
                jars = s.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
            } catch (IOException e) {
                throw new FairwayCommand.UserException(origin + ": cannot read directory " + entry + ": " + e.getMessage());
            }
            try (Stream<Path> s = Files.walk(entry)) {
                classes = s.anyMatch(p -> p.getFileName().toString().endsWith(".class") || p.endsWith("META-INF"));
            } catch (IOException e) {
                throw new FairwayCommand.UserException(origin + ": cannot read directory " + entry + ": " + e.getMessage());
            }
            List<URL> l = new ArrayList<>();
            if (classes || jars.isEmpty()) {
                l.add(url(entry, origin));
            }
            for (Path j : jars) {
                checkJar(j, origin);
                l.add(url(j, origin));
            }
            return l;
        }
        checkJar(entry, origin);
        return List.of(url(entry, origin));
    }

    private static void checkJar(Path jar, String origin) {
        if (!Files.isReadable(jar)) {
            throw new FairwayCommand.UserException(origin + ": cannot read " + jar);
        }
        try (JarFile f = new JarFile(jar.toFile())) {
            f.size();
        } catch (IOException e) {
            throw new FairwayCommand.UserException(origin + ": " + jar + " is not a jar (" + e.getMessage() + ")");
        }
    }

    private static URL url(Path p, String origin) {
        try {
            return p.toAbsolutePath().toUri().toURL();
        } catch (MalformedURLException e) {
            throw new FairwayCommand.UserException(origin + ": " + p + " cannot be used: " + e.getMessage());
        }
    }

    /** Loads every policy provider the entry declares, so a broken jar is named now rather than at the first round. */
    private static void check(URL entry, URLClassLoader loader, String origin) {
        List<String> providers = new ArrayList<>();
        try (URLClassLoader only = new URLClassLoader(new URL[] {entry}, null);
             InputStream in = only.getResourceAsStream("META-INF/services/" + PolicyProvider.class.getName())) {
            if (in == null) {
                return;
            }
            for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\\R")) {
                String name = line.replaceAll("#.*", "").trim();
                if (!name.isEmpty()) {
                    providers.add(name);
                }
            }
        } catch (IOException e) {
            throw new FairwayCommand.UserException(origin + ": cannot read " + entry.getPath() + ": " + e.getMessage());
        }
        for (String p : providers) {
            try {
                Class<?> c = Class.forName(p, false, loader);
                if (!PolicyProvider.class.isAssignableFrom(c)) {
                    throw new FairwayCommand.UserException(origin + ": " + entry.getPath() + " lists " + p
                            + " as a policy provider, but it does not implement " + PolicyProvider.class.getName());
                }
                c.getConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError | ServiceConfigurationError e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                throw new FairwayCommand.UserException(origin + ": " + entry.getPath() + ": cannot load policy provider " + p + ": "
                        + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage()));
            }
        }
    }
}

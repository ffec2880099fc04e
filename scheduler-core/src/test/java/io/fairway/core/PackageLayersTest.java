package io.fairway.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine's packages form layers: a round's input ({@code io.fairway.core.snapshot}) imports no other package
 * of the engine, and no package reaches, through the packages it uses, back to itself. Read from the sources, so
 * an import (or a fully qualified name) that closes a cycle fails here before anyone has to untangle it.
 */
class PackageLayersTest {
    private static final String ROOT = "io.fairway.core";
    private static final Pattern USE = Pattern.compile("\\bio\\.fairway\\.core((?:\\.[a-z][a-z0-9]*)*)\\.[A-Z]");

    @Test
    void theRoundsInputIsALeafAndThePackagesHaveNoCycles() throws IOException {
        Map<String, Set<String>> uses = uses(Path.of("src/main/java/io/fairway/core"));
        assertThat(uses).containsKeys(ROOT, ROOT + ".snapshot", ROOT + ".plan", ROOT + ".validation", ROOT + ".provisioning");
        assertThat(uses.get(ROOT + ".snapshot")).as("packages of the engine the round's input imports").isEmpty();
        for (String p : uses.keySet()) {
            assertThat(pathBack(uses, p, p, new TreeSet<>())).as("a cycle through " + p).isNull();
        }
    }

    /** @return a path of packages from {@code at} back to {@code target}, or null */
    private static List<String> pathBack(Map<String, Set<String>> uses, String target, String at, Set<String> seen) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(target)) {
                return new ArrayList<>(List.of(at, next));
            }
            if (seen.add(next)) {
                List<String> rest = pathBack(uses, target, next, seen);
                if (rest != null) {
                    rest.add(0, at);
                    return rest;
                }
            }
        }
        return null;
    }

    private static Map<String, Set<String>> uses(Path dir) throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(x -> x.toString().endsWith(".java"))::iterator) {
                String src = Files.readString(f);
                Matcher pkg = Pattern.compile("(?m)^package ([\\w.]+);").matcher(src);
                if (!pkg.find()) {
                    continue;
                }
                String own = pkg.group(1);
                Set<String> used = uses.computeIfAbsent(own, k -> new TreeSet<>());
                Matcher m = USE.matcher(src);
                while (m.find()) {
                    String other = ROOT + m.group(1);
                    if (!other.equals(own)) {
                        used.add(other);
                    }
                }
            }
        }
        return uses;
    }
}

package io.fairway.sim.config;

import io.fairway.config.ConfigYaml;
import io.fairway.sim.TextFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * Reads the simulator's YAML files (bounded by {@link TextFiles}) with the configuration module's reader
 * ({@link ConfigYaml}), every error a {@link SimulationConfigException} with file and line.
 */
final class YamlFiles {
    private YamlFiles() {
    }

    /**
     * Reads a YAML file: at most {@link TextFiles#MAX_YAML_BYTES} of UTF-8 with lines of at most
     * {@link TextFiles#MAX_YAML_LINE} characters (a single long scalar makes the YAML parser quadratic: 4 MB took
     * seconds, 200 MB minutes), checked before parsing.
     */
    static <T> T read(Path file, Class<T> type) {
        String text;
        try {
            text = TextFiles.read(file, TextFiles.MAX_YAML_BYTES, TextFiles.MAX_YAML_LINE);
        } catch (TextFiles.UnreadableFileException e) {
            throw new UncheckedIOException("cannot read " + e.getMessage(), e.getCause());
        }
        try {
            return read(file.toString(), new java.io.StringReader(text), type);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    static <T> T readResource(String resource, Class<T> type) {
        InputStream s = YamlFiles.class.getClassLoader().getResourceAsStream(resource);
        if (s == null) {
            throw new UncheckedIOException(new IOException("resource " + resource + " is missing from the class path"));
        }
        try (Reader in = new InputStreamReader(s, StandardCharsets.UTF_8)) {
            return read("classpath:" + resource, in, type);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + ": " + e.getMessage(), e);
        }
    }

    static <T> T read(String source, Reader in, Class<T> type) throws IOException {
        String text = new BufferedReader(in).lines().collect(Collectors.joining("\n"));
        if (text.length() > TextFiles.MAX_YAML_BYTES) {
            throw new SimulationConfigException(source, 0, 0, "is " + text.length() + " characters; at most " + TextFiles.MAX_YAML_BYTES + " are read", null);
        }
        try {
            return ConfigYaml.read(source, text, type);
        } catch (io.fairway.config.ConfigException e) {
            throw new SimulationConfigException(e);
        }
    }
}


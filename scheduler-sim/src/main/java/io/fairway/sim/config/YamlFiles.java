package io.fairway.sim.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fairway.sim.TextFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Reads the YAML files into their config records, turning every error into a {@link ConfigException} with file and line. */
final class YamlFiles {
    private static final ObjectMapper MAPPER = new ObjectMapper(YAMLFactory.builder().loaderOptions(loaderOptions()).build())
            .registerModule(new SimpleModule("fairway-validation").setDeserializerModifier(new ValidatingModifier()))
            .addHandler(new UnknownFields())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private static final Pattern UNKNOWN_FIELD = Pattern.compile("unknown field \"([^\"]+)\"");

    private YamlFiles() {
    }

    /** SnakeYAML's own bound on a document, at the file bound (its default, 3 Mi code points, came after the scan). */
    private static org.yaml.snakeyaml.LoaderOptions loaderOptions() {
        org.yaml.snakeyaml.LoaderOptions o = new org.yaml.snakeyaml.LoaderOptions();
        o.setCodePointLimit((int) TextFiles.MAX_YAML_BYTES);
        return o;
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
            throw new ConfigException(source, 0, 0, "is " + text.length() + " characters; at most " + TextFiles.MAX_YAML_BYTES + " are read", null);
        }
        if (text.isBlank()) {
            throw new ConfigException(source, 0, 0, "is empty", null);
        }
        T value;
        try {
            value = MAPPER.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw translate(source, text, e);
        }
        if (value == null) {
            throw new ConfigException(source, 0, 0, "is empty", null);
        }
        return value;
    }

    /** Reports an unknown field at its own line, with the fields that are known there. */
    private static final class UnknownFields extends DeserializationProblemHandler {
        @Override
        public boolean handleUnknownProperty(DeserializationContext ctxt, JsonParser p, JsonDeserializer<?> deserializer, Object beanOrClass,
                                             String propertyName) throws IOException {
            Collection<Object> known = deserializer.getKnownPropertyNames();
            String list = known == null ? "" : "; known fields: " + String.join(", ", new TreeSet<>(known.stream().map(String::valueOf).toList()));
            throw new JsonMappingException(p, "unknown field \"" + propertyName + "\"" + list, p.currentTokenLocation());
        }
    }

    /** Wraps the deserializer of every {@link Validated} record so it is checked right after it is read. */
    private static final class ValidatingModifier extends BeanDeserializerModifier {
        private static final long serialVersionUID = 1L;

        @Override
        public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription bean, JsonDeserializer<?> deserializer) {
            return Validated.class.isAssignableFrom(bean.getBeanClass()) ? new ValidatingDeserializer(deserializer) : deserializer;
        }
    }

    /** Reads a record, then calls {@link Validated#validate()}, reporting a failure at the line where the record starts. */
    private static final class ValidatingDeserializer extends DelegatingDeserializer {
        private static final long serialVersionUID = 1L;

        ValidatingDeserializer(JsonDeserializer<?> delegate) {
            super(delegate);
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> newDelegatee) {
            return new ValidatingDeserializer(newDelegatee);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonLocation start = p.currentTokenLocation();
            Object value;
            try {
                value = super.deserialize(p, ctxt);
            } catch (JsonMappingException e) {
                if (known(e.getLocation()) || !known(start)) {
                    throw e;
                }
                // Records are read through a token buffer that has no locations: report where this record starts.
                JsonMappingException located = new JsonMappingException(p, message(e), start);
                List<JsonMappingException.Reference> path = e.getPath();
                for (int i = path.size() - 1; i >= 0; i--) {
                    located.prependPath(path.get(i));
                }
                throw located;
            }
            if (value instanceof Validated v) {
                try {
                    v.validate();
                } catch (IllegalArgumentException e) {
                    throw new JsonMappingException(p, e.getMessage(), start);
                }
            }
            return value;
        }
    }

    private static boolean known(JsonLocation loc) {
        return loc != null && loc.getLineNr() > 0;
    }

    private static String message(JsonProcessingException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException && !(cause instanceof JsonProcessingException)) {
            return cause.getMessage();
        }
        String message = e.getOriginalMessage();
        if (message == null) {
            return e.getClass().getSimpleName();
        }
        int nl = message.indexOf('\n');
        return (nl > 0 ? message.substring(0, nl) : message).replace("io.fairway.sim.config.", "");
    }

    private static ConfigException translate(String source, String text, JsonProcessingException e) {
        JsonLocation loc = e.getLocation();
        int line = known(loc) ? loc.getLineNr() : 0;
        int col = known(loc) ? Math.max(0, loc.getColumnNr()) : 0;
        String path = e instanceof JsonMappingException m ? path(m) : "";
        String message = message(e);
        Matcher unknown = UNKNOWN_FIELD.matcher(message);
        if (unknown.lookingAt() && line > 0) {
            // The record's start is known; find the line of the unknown key itself, at or after it.
            Pattern key = Pattern.compile("(^|[\\s{,-])\"?" + Pattern.quote(unknown.group(1)) + "\"?\\s*:");
            String[] lines = text.split("\n", -1);
            for (int i = line - 1; i < lines.length; i++) {
                Matcher m = key.matcher(lines[i]);
                if (m.find()) {
                    line = i + 1;
                    col = m.start() + m.group(1).length() + 1;
                    break;
                }
            }
        }
        return new ConfigException(source, line, col, (path.isEmpty() ? "" : path + ": ") + message, e);
    }

    private static String path(JsonMappingException m) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : m.getPath()) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }
}

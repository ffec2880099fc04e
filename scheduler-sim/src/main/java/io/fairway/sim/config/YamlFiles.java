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
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fairway.api.InvalidSpecException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the YAML files into their config records, turning every error into a {@link ConfigException} with file and line. */
final class YamlFiles {
    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory())
            .registerModule(new SimpleModule("fairway-validation").setDeserializerModifier(new ValidatingModifier()))
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    private YamlFiles() {
    }

    static <T> T read(Path file, Class<T> type) {
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(file.toString(), in, type);
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
        T value;
        try {
            value = MAPPER.readValue(in, type);
        } catch (JsonProcessingException e) {
            throw translate(source, e);
        }
        if (value == null) {
            throw new ConfigException(source, 0, 0, "is empty", null);
        }
        return value;
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
            Object value = super.deserialize(p, ctxt);
            if (value instanceof Validated v) {
                try {
                    v.validate();
                } catch (IllegalArgumentException e) {
                    JsonMappingException m = new JsonMappingException(p, e.getMessage(), start);
                    m.initCause(e);
                    throw m;
                }
            }
            return value;
        }
    }

    private static ConfigException translate(String source, JsonProcessingException e) {
        JsonLocation loc = e.getLocation();
        int line = loc == null ? 0 : Math.max(0, loc.getLineNr());
        int col = loc == null ? 0 : Math.max(0, loc.getColumnNr());
        String path = "";
        if (e instanceof JsonMappingException m) {
            path = path(m);
        }
        Throwable cause = e.getCause();
        String message;
        if (cause instanceof InvalidSpecException || cause instanceof IllegalArgumentException && !(cause instanceof JsonProcessingException)) {
            message = cause.getMessage();
        } else {
            message = e.getOriginalMessage();
            int nl = message == null ? -1 : message.indexOf('\n');
            if (nl > 0) {
                message = message.substring(0, nl);
            }
            message = message == null ? e.getClass().getSimpleName() : message.replace("io.fairway.sim.config.", "");
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

package io.fairway.config;

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
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.TreeSet;

/**
 * The one YAML reader of Fairway's configuration files (the simulator's cluster, queues and scenario files, the
 * Kubernetes adapter's queue configuration): strict (an unknown or duplicated field is an error), and every error a
 * {@link ConfigException} with the file, the line, the path of the field and the value. Each record that is
 * {@link Validated} is checked as soon as it is read, so its error names the line where it starts.
 */
public final class ConfigYaml {
    /** The most characters read (SnakeYAML's own bound on a document); callers may bound files tighter. */
    public static final int MAX_CHARS = 8 << 20;

    private static final ObjectMapper MAPPER = new ObjectMapper(YAMLFactory.builder().loaderOptions(loaderOptions()).build())
            .registerModule(new SimpleModule("fairway-validation").setDeserializerModifier(new ValidatingModifier()))
            .addHandler(new UnknownFields())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            // 1.5 where an integer is expected is an error, not 1
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

    private static final Pattern UNKNOWN_FIELD = Pattern.compile("unknown field \"([^\"]+)\"");

    private ConfigYaml() {
    }

    private static org.yaml.snakeyaml.LoaderOptions loaderOptions() {
        org.yaml.snakeyaml.LoaderOptions o = new org.yaml.snakeyaml.LoaderOptions();
        o.setCodePointLimit(MAX_CHARS);
        return o;
    }

    /**
     * Reads YAML text into a config record.
     *
     * @param source the file name used in errors
     * @param text the YAML text
     * @param type the record type
     * @param <T> the record type
     * @return the record
     * @throws ConfigException naming the source, the line and the field of the first error
     */
    public static <T> T read(String source, String text, Class<T> type) {
        if (text.length() > MAX_CHARS) {
            throw new ConfigException(source, 0, 0, "is " + text.length() + " characters; at most " + MAX_CHARS + " are read", null);
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
        if (e instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException m && m.getTargetType() != null
                && !(e instanceof com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException)) {
            return wrongType(m);
        }
        String message = e.getOriginalMessage();
        if (message == null) {
            return e.getClass().getSimpleName();
        }
        int nl = message.indexOf('\n');
        return (nl > 0 ? message.substring(0, nl) : message).replaceAll("io\\.fairway\\.(?:[a-z0-9]+\\.)+", "");
    }

    private static final Pattern QUOTED_VALUE = Pattern.compile("from String \"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern NUMBER_VALUE = Pattern.compile("(?:Floating-point|Integer|Boolean) value \\(([^)]*)\\)");

    /**
     * A value of the wrong type, in the file's terms: "expected an integer, was 1.5", never the library's own words
     * (Java type names, token names, its {@code CoercionConfig}).
     */
    private static String wrongType(com.fasterxml.jackson.databind.exc.MismatchedInputException m) {
        String original = m.getOriginalMessage() == null ? "" : m.getOriginalMessage();
        String was = null;
        if (m instanceof com.fasterxml.jackson.databind.exc.InvalidFormatException f && f.getValue() != null) {
            was = String.valueOf(f.getValue());
        } else {
            Matcher q = QUOTED_VALUE.matcher(original);
            Matcher n = NUMBER_VALUE.matcher(original);
            if (q.find()) {
                was = q.group(1);
            } else if (n.find()) {
                was = n.group(1);
            } else if (original.contains("START_ARRAY") || original.contains("Array value")) {
                was = "a list";
            } else if (original.contains("START_OBJECT") || original.contains("Object value")) {
                was = "a mapping";
            }
        }
        if (was != null && was.contains("JsonToken.")) {
            was = was.contains("VALUE_TRUE") ? "true" : was.contains("VALUE_FALSE") ? "false" : was.contains("START_ARRAY") ? "a list"
                    : was.contains("START_OBJECT") ? "a mapping" : null;
        }
        if (was != null && was.length() > 80) {
            was = was.substring(0, 80) + "...";
        }
        return "expected " + describe(m.getTargetType()) + (was == null ? "" : ", was " + (was.startsWith("a ") ? was : "'" + was + "'"));
    }

    private static String describe(Class<?> type) {
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class || type == Short.class
                || type == short.class || type == java.math.BigInteger.class) {
            return "an integer";
        }
        if (type == Double.class || type == double.class || type == Float.class || type == float.class || type == java.math.BigDecimal.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a text value";
        }
        if (type.isEnum()) {
            return "one of " + java.util.Arrays.toString(type.getEnumConstants());
        }
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "a mapping of fields";
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
        return new ConfigException(source, line, col, path, message, e);
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

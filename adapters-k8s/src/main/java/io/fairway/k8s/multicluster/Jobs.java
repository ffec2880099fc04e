package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;

/** Small readers over fabric8 Jobs (a null value counts as absent). */
final class Jobs {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Jobs() {
    }

    static String annotation(HasMetadata o, String key) {
        Map<String, String> m = o.getMetadata().getAnnotations();
        return m == null ? null : m.get(key);
    }

    static String key(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    static boolean suspended(Job job) {
        return job.getSpec() != null && Boolean.TRUE.equals(job.getSpec().getSuspend());
    }

    /** @return "Complete", "Failed" or null */
    static String finishedCondition(Job job) {
        if (job.getStatus() == null || job.getStatus().getConditions() == null) {
            return null;
        }
        for (JobCondition c : job.getStatus().getConditions()) {
            if (("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus())) {
                return c.getType();
            }
        }
        return null;
    }

    static String failureMessage(Job job) {
        if (job.getStatus() != null && job.getStatus().getConditions() != null) {
            for (JobCondition c : job.getStatus().getConditions()) {
                if ("Failed".equals(c.getType())) {
                    return (c.getReason() == null ? "" : c.getReason() + ": ") + (c.getMessage() == null ? "" : c.getMessage());
                }
            }
        }
        return "the Job failed";
    }

    static long creationMillis(HasMetadata o) {
        String ts = o.getMetadata().getCreationTimestamp();
        if (ts == null) {
            return 0;
        }
        try {
            return Math.max(0, OffsetDateTime.parse(ts).toInstant().toEpochMilli());
        } catch (DateTimeParseException e) {
            return 0;
        }
    }

    /** @return the value as JSON (null map values kept: in a merge patch they remove the key) */
    static String json(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + value, e);
        }
    }

    static Long parseLong(String s) {
        if (s == null) {
            return null;
        }
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}

package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.k8s.Kube;
import java.util.Map;

/** Small readers over fabric8 Jobs (a null value counts as absent). */
final class BatchJobFields {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private BatchJobFields() {
    }

    static String annotation(HasMetadata o, String key) {
        return Kube.annotation(o, key);
    }

    static String key(HasMetadata o) {
        return Kube.key(o);
    }

    static boolean suspended(Job job) {
        return Kube.suspended(job);
    }

    /** @return "Complete", "Failed" or null */
    static String finishedCondition(Job job) {
        return Kube.finishedCondition(job);
    }

    static String failureMessage(Job job) {
        return Kube.failureMessage(job);
    }

    static long creationMillis(HasMetadata o) {
        return Kube.creationMillis(o);
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

package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;

/** Small readers over fabric8 objects: annotations and labels (a null value counts as absent), Job and pod state. */
public final class Kube {
    private Kube() {
    }

    public static String annotation(HasMetadata o, String key) {
        Map<String, String> m = o.getMetadata().getAnnotations();
        return m == null ? null : m.get(key);
    }

    static String label(HasMetadata o, String key) {
        Map<String, String> m = o.getMetadata().getLabels();
        return m == null ? null : m.get(key);
    }

    public static String key(HasMetadata o) {
        return o.getMetadata().getNamespace() + "/" + o.getMetadata().getName();
    }

    public static boolean suspended(Job job) {
        return job.getSpec() != null && Boolean.TRUE.equals(job.getSpec().getSuspend());
    }

    /** @return "Complete", "Failed" or null */
    public static String finishedCondition(Job job) {
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

    public static String failureMessage(Job job) {
        if (job.getStatus() != null && job.getStatus().getConditions() != null) {
            for (JobCondition c : job.getStatus().getConditions()) {
                if ("Failed".equals(c.getType())) {
                    return (c.getReason() == null ? "" : c.getReason() + ": ") + (c.getMessage() == null ? "" : c.getMessage());
                }
            }
        }
        return "the Job failed";
    }

    public static long creationMillis(HasMetadata o) {
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

    static boolean hasGate(Pod pod) {
        List<PodSchedulingGate> gates = pod.getSpec() == null ? null : pod.getSpec().getSchedulingGates();
        if (gates == null) {
            return false;
        }
        for (PodSchedulingGate g : gates) {
            if (Keys.TOPOLOGY_GATE.equals(g.getName())) {
                return true;
            }
        }
        return false;
    }

    static String phase(Pod pod) {
        return pod.getStatus() == null || pod.getStatus().getPhase() == null ? "Pending" : pod.getStatus().getPhase();
    }

    static boolean terminal(Pod pod) {
        String p = phase(pod);
        return "Succeeded".equals(p) || "Failed".equals(p) || pod.getMetadata().getDeletionTimestamp() != null;
    }

    /** JSON Pointer escaping of one path segment (RFC 6901). */
    static String pointer(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }
}

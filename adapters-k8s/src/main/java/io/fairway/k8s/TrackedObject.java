package io.fairway.k8s;

import io.fairway.api.job.JobSpec;
import java.util.HashMap;
import java.util.Map;

/**
 * An object the engine knows: its kind, Kubernetes identity, its spec, and the pods bound to its members (by pod
 * uid, each with its pod set and member index).
 */
final class TrackedObject {
    final EnabledKind kind;
    final String uid;
    final String namespace;
    final String name;
    final String id;
    JobSpec spec;
    /** The object's spec as admitted (the submitted view), to tell which fields an edit of an admitted object changed. */
    com.fasterxml.jackson.databind.JsonNode admittedSpec;
    /**
     * The previous values of what Fairway's admission changed, as Fairway recorded them (the engine's own copy: an
     * eviction restores from it, not from the annotation its owner can edit); null when not admitted.
     */
    OriginalTemplate original;
    /** The resourceVersion whose refused edit was last reported, so each edit gets one Warning. */
    String refusedVersion;
    int priority;
    boolean ended;
    /** How it ended ("Succeeded" or "Failed") while the {@value Keys#FINISHED_ANNOTATION} mark is not yet written; else null. */
    String unmarkedOutcome;
    String published;
    /** The last integration warning emitted as an Event (each distinct one once). */
    String warned;
    final Map<String, Member> members = new HashMap<>();

    /** A pod's member: its pod set and index. */
    record Member(String podSet, int index) {
    }

    TrackedObject(EnabledKind kind, String uid, String namespace, String name, String id, JobSpec spec) {
        this.kind = kind;
        this.uid = uid;
        this.namespace = namespace;
        this.name = name;
        this.id = id;
        this.spec = spec;
        this.priority = spec.priority();
    }

    String key() {
        return namespace + "/" + name;
    }
}

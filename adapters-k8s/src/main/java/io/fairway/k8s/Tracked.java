package io.fairway.k8s;

import io.fairway.api.job.JobSpec;
import java.util.HashMap;
import java.util.Map;

/** A Job the engine knows: its Kubernetes identity, its spec, and the pods bound to its members (by pod uid). */
final class Tracked {
    final String uid;
    final String namespace;
    final String name;
    final String id;
    final JobSpec spec;
    int priority;
    boolean ended;
    String published;
    final Map<String, Integer> members = new HashMap<>();

    Tracked(String uid, String namespace, String name, String id, JobSpec spec) {
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

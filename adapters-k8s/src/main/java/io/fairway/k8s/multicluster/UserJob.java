package io.fairway.k8s.multicluster;

/** A user's Job (in the manager cluster) the engine knows, and what was last published on it. */
final class UserJob {
    final String id;
    final String uid;
    final String namespace;
    final String name;
    String publishedState;
    String publishedWorker;
    String publishedReason;
    int priority;

    UserJob(String id, String uid, String namespace, String name) {
        this.id = id;
        this.uid = uid;
        this.namespace = namespace;
        this.name = name;
    }
}

package io.fairway.visibility;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fairway.core.Scheduler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write verbs (cancel a job, set its priority, stop or resume a ClusterQueue): refused with 403 unless enabled,
 * with 401 without the right bearer token (compared in constant time on SHA-256 digests, so neither the content
 * nor the length of the token leaks through timing), and audited on the {@code io.fairway.visibility.audit} logger
 * and in the events ring.
 */
final class Writes {
    static final Logger AUDIT = LoggerFactory.getLogger("io.fairway.visibility.audit");
    static final int MAX_ACTOR = 64;

    private final EventRing events;
    private final byte[] tokenDigest; // null: writes disabled
    private final java.util.function.Function<Scheduler, OperatorWrites> target;

    Writes(EventRing events, String token) {
        this(events, token, null);
    }

    /** @param target where writes act, given the scheduler now (null: on the scheduler itself) */
    Writes(EventRing events, String token, java.util.function.Function<Scheduler, OperatorWrites> target) {
        this.events = events;
        this.tokenDigest = token == null ? null : sha256(token);
        this.target = target == null ? OperatorWrites::engine : target;
    }

    /** Runs a write on the target: an unknown target is 404, a write the target could not make 502. */
    private static boolean act(java.util.function.BooleanSupplier write) {
        try {
            return write.getAsBoolean();
        } catch (IllegalArgumentException e) { // an InvalidSpecException too
            throw ApiException.notFound(e.getMessage());
        } catch (IllegalStateException e) {
            throw ApiException.status(502, "write failed", e.getMessage());
        }
    }

    boolean enabled() {
        return tokenDigest != null;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    /** @return who made the request, for the audit: the client's address and the user it names (self-declared) */
    private String authorize(HttpRequest req) {
        if (tokenDigest == null) {
            throw ApiException.status(403, "writes disabled", "this server is read-only; writes are enabled with --ui-write and a token");
        }
        String auth = req.header("authorization");
        if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ApiException.status(401, "unauthorized", "a write needs the header 'Authorization: Bearer <token>'");
        }
        if (!MessageDigest.isEqual(tokenDigest, sha256(auth.substring(7).trim()))) {
            throw ApiException.status(401, "unauthorized", "the bearer token is wrong");
        }
        String user = req.header("x-fairway-user");
        user = user == null || user.isBlank() ? "token" : user.replaceAll("[^A-Za-z0-9@._:-]", "_");
        if (user.length() > MAX_ACTOR) {
            user = user.substring(0, MAX_ACTOR);
        }
        return user + "@" + req.remote();
    }

    private ObjectNode done(Scheduler scheduler, String actor, String action, String target, String jobId, String jobSet, boolean changed) {
        AUDIT.info("actor={} action={} target={} changed={}", actor, action, target, changed);
        long now = scheduler.snapshot().nowMillis();
        events.add(now, "AUDIT", jobId, jobSet, action + " " + target + (changed ? "" : " (no change)"), actor);
        ObjectNode o = VisibilityJson.object();
        o.put("ok", true);
        o.put("action", action);
        o.put("target", target);
        o.put("changed", changed);
        return o;
    }

    ObjectNode cancel(Scheduler scheduler, HttpRequest req, String jobId) {
        String actor = authorize(req);
        var j = scheduler.status(jobId).orElseThrow(() -> ApiException.notFound("no job '" + VisibilityJson.clip(jobId) + "'"));
        boolean changed = act(() -> target.apply(scheduler).cancel(jobId));
        return done(scheduler, actor, "cancel", jobId, jobId, j.spec().jobSet(), changed);
    }

    ObjectNode priority(Scheduler scheduler, HttpRequest req, String jobId, int priority) {
        String actor = authorize(req);
        var j = scheduler.status(jobId).orElseThrow(() -> ApiException.notFound("no job '" + VisibilityJson.clip(jobId) + "'"));
        boolean changed = act(() -> target.apply(scheduler).setPriority(jobId, priority));
        return done(scheduler, actor, "priority=" + priority, jobId, jobId, j.spec().jobSet(), changed);
    }

    ObjectNode stopQueue(Scheduler scheduler, HttpRequest req, String clusterQueue, boolean stop) {
        String actor = authorize(req);
        var q = scheduler.snapshot().clusterQueues().get(clusterQueue);
        if (q == null) {
            throw ApiException.notFound("no ClusterQueue '" + VisibilityJson.clip(clusterQueue) + "'");
        }
        boolean changed = act(() -> target.apply(scheduler).stopClusterQueue(clusterQueue, stop));
        return done(scheduler, actor, stop ? "stop" : "resume", clusterQueue, null, null, changed);
    }
}

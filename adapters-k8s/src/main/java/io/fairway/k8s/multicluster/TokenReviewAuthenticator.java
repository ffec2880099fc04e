package io.fairway.k8s.multicluster;

import io.fabric8.kubernetes.api.model.authentication.TokenReview;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fairway.submit.Authenticator;
import io.fairway.submit.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer tokens checked by a Kubernetes API server (a TokenReview, as the API server's webhook authenticators do): a
 * manager running in a cluster takes the service-account tokens of that cluster, and the tokens of whatever
 * authenticators the API server trusts. The user is the review's username, the groups its groups. Its service
 * account needs {@code create} on {@code tokenreviews} ({@code system:auth-delegator} grants it).
 *
 * <p>An accepted token is remembered (by its SHA-256, never the token itself) for a short time, so a burst of
 * requests costs one review; a refused one is not remembered. A review that cannot be made refuses the token.
 */
public final class TokenReviewAuthenticator implements Authenticator {
    private static final Logger LOG = LoggerFactory.getLogger(TokenReviewAuthenticator.class);
    private static final int CACHED = 10_000;

    private record Accepted(Principal who, long untilNanos) {
    }

    private final KubernetesClient client;
    private final String audience;
    private final long ttlNanos;
    private final Map<String, Accepted> cache = new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Accepted> eldest) {
            return size() > CACHED;
        }
    };

    /**
     * @param client the client of the cluster whose API server reviews the tokens (in a pod: its own cluster)
     * @param audience the audience the token must be meant for, or null for the API server's own
     * @param ttl how long an accepted token is taken without asking again, 0..10 minutes
     */
    public TokenReviewAuthenticator(KubernetesClient client, String audience, Duration ttl) {
        if (ttl == null || ttl.isNegative() || ttl.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("auth.tokenReviewCache must be 0..600 s, was " + ttl);
        }
        this.client = client;
        this.audience = audience == null || audience.isBlank() ? null : audience;
        this.ttlNanos = ttl.toNanos();
    }

    @Override
    public Principal authenticate(String bearerToken) throws AuthException {
        if (bearerToken == null || bearerToken.isBlank() || bearerToken.length() > 16_384) {
            throw new AuthException("a bearer token is required");
        }
        String key = sha256(bearerToken);
        long now = System.nanoTime();
        synchronized (cache) {
            Accepted a = cache.get(key);
            if (a != null && now - a.untilNanos() < 0) {
                return a.who();
            }
        }
        TokenReviewBuilder b = new TokenReviewBuilder().withNewSpec().withToken(bearerToken).endSpec();
        if (audience != null) {
            b.editSpec().withAudiences(audience).endSpec();
        }
        TokenReview answer;
        try {
            answer = client.authentication().v1().tokenReviews().create(b.build());
        } catch (KubernetesClientException e) {
            LOG.warn("a TokenReview failed: {}", e.getMessage());
            throw new AuthException("the token could not be reviewed by the Kubernetes API server");
        }
        TokenReviewStatus st = answer == null ? null : answer.getStatus();
        if (st == null || !Boolean.TRUE.equals(st.getAuthenticated()) || st.getUser() == null || st.getUser().getUsername() == null
                || st.getUser().getUsername().isBlank()) {
            String why = st == null || st.getError() == null || st.getError().isBlank() ? "" : ": " + st.getError();
            throw new AuthException("the Kubernetes API server refused the token" + why);
        }
        if (audience != null && (st.getAudiences() == null || !st.getAudiences().contains(audience))) {
            throw new AuthException("the token is not meant for audience " + audience);
        }
        List<String> groups = st.getUser().getGroups() == null ? List.of() : st.getUser().getGroups();
        Principal who = new Principal(st.getUser().getUsername(), Set.copyOf(groups.stream().filter(g -> g != null && !g.isBlank()).toList()));
        if (ttlNanos > 0) {
            synchronized (cache) {
                cache.put(key, new Accepted(who, now + ttlNanos));
            }
        }
        return who;
    }

    private static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

package io.fairway.k8s.multicluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.authentication.TokenReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fairway.submit.Authenticator;
import io.fairway.submit.Principal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Bearer tokens reviewed by a Kubernetes API server (a mock answering TokenReviews as the real one does). */
class TokenReviewAuthenticatorTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final AtomicInteger reviews = new AtomicInteger();
    private final List<String> askedAudiences = new java.util.concurrent.CopyOnWriteArrayList<>();
    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void apiServer() {
        server = new KubernetesMockServer(false);
        server.init();
        server.expect().post().withPath("/apis/authentication.k8s.io/v1/tokenreviews").andReply(201, request -> {
            reviews.incrementAndGet();
            JsonNode spec;
            try {
                spec = JSON.readTree(new String(request.getBody().getBytes(), StandardCharsets.UTF_8)).path("spec");
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            }
            String token = spec.path("token").asText();
            List<String> audiences = new java.util.ArrayList<>();
            spec.path("audiences").forEach(a -> audiences.add(a.asText()));
            askedAudiences.addAll(audiences);
            TokenReviewBuilder b = new TokenReviewBuilder().withNewSpec().withToken(token).endSpec();
            if (token.equals("sa-token-of-trainer")) {
                return b.withNewStatus().withAuthenticated(true).withAudiences(audiences.isEmpty() ? List.of("https://kubernetes.default.svc") : audiences)
                        .withNewUser().withUsername("system:serviceaccount:ml:trainer")
                        .withGroups("system:serviceaccounts", "system:serviceaccounts:ml", "system:authenticated").endUser().endStatus().build();
            }
            return b.withNewStatus().withAuthenticated(false).withError("invalid bearer token").endStatus().build();
        }).always();
        try (KubernetesClient base = server.createClient()) {
            client = new io.fabric8.kubernetes.client.KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client.ConfigBuilder(
                    base.getConfiguration()).withRequestRetryBackoffLimit(0).withConnectionTimeout(1_000).withRequestTimeout(3_000).build()).build();
        }
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    @Test
    void aServiceAccountTokenIsTheUserAndGroupsTheApiServerSaysAndIsReviewedOnceWhileRemembered() throws Exception {
        TokenReviewAuthenticator auth = new TokenReviewAuthenticator(client, null, Duration.ofSeconds(30));
        Principal who = auth.authenticate("sa-token-of-trainer");
        assertThat(who.name()).isEqualTo("system:serviceaccount:ml:trainer");
        assertThat(who.groups()).contains("system:serviceaccounts:ml");
        auth.authenticate("sa-token-of-trainer");
        auth.authenticate("sa-token-of-trainer");
        assertThat(reviews.get()).as("an accepted token is remembered for a while").isEqualTo(1);
    }

    @Test
    void aTokenTheApiServerRefusesIsRefusedEachTimeWithItsReason() {
        TokenReviewAuthenticator auth = new TokenReviewAuthenticator(client, null, Duration.ofSeconds(30));
        assertThatThrownBy(() -> auth.authenticate("forged")).isInstanceOf(Authenticator.AuthException.class)
                .hasMessageContaining("invalid bearer token");
        assertThatThrownBy(() -> auth.authenticate("forged")).isInstanceOf(Authenticator.AuthException.class);
        assertThat(reviews.get()).as("a refused token is not remembered").isEqualTo(2);
        assertThatThrownBy(() -> auth.authenticate("")).isInstanceOf(Authenticator.AuthException.class);
    }

    @Test
    void anAudienceIsAskedForAndBadSettingsNameTheField() throws Exception {
        TokenReviewAuthenticator auth = new TokenReviewAuthenticator(client, "fairway", Duration.ZERO);
        assertThat(auth.authenticate("sa-token-of-trainer").groups()).contains("system:authenticated");
        assertThat(askedAudiences).containsExactly("fairway");
        assertThatThrownBy(() -> new TokenReviewAuthenticator(client, null, Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auth.tokenReviewCache");
    }

    @Test
    void anApiServerThatDoesNotAnswerRefusesTheToken() {
        TokenReviewAuthenticator auth = new TokenReviewAuthenticator(client, null, Duration.ofSeconds(30));
        server.destroy();
        assertThatThrownBy(() -> auth.authenticate("sa-token-of-trainer")).isInstanceOf(Authenticator.AuthException.class)
                .hasMessageContaining("could not be reviewed");
        server = new KubernetesMockServer(false);
        server.init();
    }
}

package io.fairway.submit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Tokens of an OpenID Connect provider whose keys are fetched from a URL: a local HTTP server plays the provider
 * (its discovery document and its JWK set), counting the key-set fetches.
 */
class OidcAuthenticatorTest {
    private HttpServer server;
    private String issuer;
    private final AtomicInteger jwksFetches = new AtomicInteger();
    private final AtomicReference<String> jwks = new AtomicReference<>();
    private final AtomicReference<String> discoveryIssuer = new AtomicReference<>();
    private RSAKey first;
    private RSAKey second;

    @BeforeEach
    void provider() throws Exception {
        first = new RSAKeyGenerator(2048).keyID("first").generate();
        second = new RSAKeyGenerator(2048).keyID("second").generate();
        jwks.set(new JWKSet(first).toPublicJWKSet().toString());
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        issuer = "http://127.0.0.1:" + server.getAddress().getPort() + "/realms/ml";
        discoveryIssuer.set(issuer);
        server.createContext("/realms/ml/.well-known/openid-configuration", ex -> {
            byte[] b = ("{\"issuer\": \"" + discoveryIssuer.get() + "\", \"jwks_uri\": \"" + issuer + "/keys\"}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.createContext("/realms/ml/keys", ex -> {
            jwksFetches.incrementAndGet();
            byte[] b = jwks.get().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String token(RSAKey key, String iss, String aud, String subject) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), new JWTClaimsSet.Builder()
                .issuer(iss).audience(aud).subject(subject).claim("groups", List.of("ml"))
                .expirationTime(new Date(System.currentTimeMillis() + 600_000)).build());
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    @Test
    void discoveredKeysCheckTokensAreFetchedOnceAndFetchedAgainWhenTheProviderRotatesThem() throws Exception {
        Authenticator auth = JwtAuthenticator.oidc(URI.create(issuer), "fairway", Duration.ofMinutes(5));

        Principal alice = auth.authenticate(token(first, issuer, "fairway", "alice"));
        assertThat(alice.name()).isEqualTo("alice");
        assertThat(alice.groups()).isEqualTo(Set.of("ml"));
        auth.authenticate(token(first, issuer, "fairway", "bob"));
        auth.authenticate(token(first, issuer, "fairway", "carol"));
        assertThat(jwksFetches.get()).as("the key set is cached, not fetched per request").isEqualTo(1);

        // the provider rotates its key: a token naming the new key makes the set be fetched again
        jwks.set(new JWKSet(second).toPublicJWKSet().toString());
        assertThat(auth.authenticate(token(second, issuer, "fairway", "dave")).name()).isEqualTo("dave");
        assertThat(jwksFetches.get()).isEqualTo(2);
    }

    @Test
    void tokensOfAnotherIssuerAudienceOrKeyAreRefused() throws Exception {
        Authenticator auth = JwtAuthenticator.oidc(URI.create(issuer), "fairway", Duration.ofMinutes(5));
        RSAKey stranger = new RSAKeyGenerator(2048).keyID("first").generate(); // same key id, another key

        assertThatThrownBy(() -> auth.authenticate(token(first, "http://elsewhere.example", "fairway", "mallory")))
                .isInstanceOf(Authenticator.AuthException.class);
        assertThatThrownBy(() -> auth.authenticate(token(first, issuer, "another-service", "mallory")))
                .isInstanceOf(Authenticator.AuthException.class);
        assertThatThrownBy(() -> auth.authenticate(token(stranger, issuer, "fairway", "mallory")))
                .isInstanceOf(Authenticator.AuthException.class);
    }

    @Test
    void aKeySetUrlWithoutDiscoveryAndBadSettingsNamingTheField() throws Exception {
        Authenticator auth = JwtAuthenticator.jwksUrl(URI.create(issuer + "/keys"), null, null, Duration.ofSeconds(60));
        assertThat(auth.authenticate(token(first, "any", "any", "erin")).name()).isEqualTo("erin");

        discoveryIssuer.set("http://impostor.example/realms/ml");
        assertThatThrownBy(() -> JwtAuthenticator.oidc(URI.create(issuer), null, Duration.ofMinutes(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auth.oidcIssuer").hasMessageContaining("impostor");
        assertThatThrownBy(() -> JwtAuthenticator.jwksUrl(URI.create("file:///etc/keys"), null, null, Duration.ofMinutes(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auth.jwksUrl");
        assertThatThrownBy(() -> JwtAuthenticator.jwksUrl(URI.create(issuer + "/keys"), null, null, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auth.jwksCacheSeconds");
    }

    @Test
    void anyOfTakesATokenOneOfItsWaysTakes() throws Exception {
        Authenticator jwt = JwtAuthenticator.jwksUrl(URI.create(issuer + "/keys"), issuer, null, Duration.ofSeconds(60));
        Authenticator fixed = t -> {
            if (t.equals("opaque-token")) {
                return new Principal("svc", Set.of());
            }
            throw new Authenticator.AuthException("unknown opaque token");
        };
        Authenticator both = Authenticator.anyOf(List.of(jwt, fixed));
        assertThat(both.authenticate(token(first, issuer, "x", "frank")).name()).isEqualTo("frank");
        assertThat(both.authenticate("opaque-token").name()).isEqualTo("svc");
        assertThatThrownBy(() -> both.authenticate("nothing")).isInstanceOf(Authenticator.AuthException.class)
                .hasMessageContaining("not a JWT").hasMessageContaining("unknown opaque token");
    }
}

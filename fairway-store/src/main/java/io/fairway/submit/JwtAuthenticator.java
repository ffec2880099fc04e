package io.fairway.submit;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.ImmutableSecret;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Verifies JSON Web Tokens with Nimbus JOSE+JWT: the signature (HMAC with a shared secret, or RSA / EC keys from a
 * JWK set file, as an OIDC provider publishes them), the expiry (required), not-before, and the issuer and audience
 * when configured. The subject is the user; the {@code groups} claim (a list of strings) gives the groups.
 */
public final class JwtAuthenticator implements Authenticator {
    private final DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();

    private JwtAuthenticator(JWKSource<SecurityContext> keys, Set<JWSAlgorithm> algorithms, String issuer, String audience) {
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(algorithms, keys));
        JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
        if (issuer != null) {
            exact.issuer(issuer);
        }
        // a mutable set: the verifier asks whether it contains null, which Set.of refuses to answer
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(audience == null ? null : new HashSet<>(List.of(audience)), exact.build(),
                Set.of("sub", "exp"), null));
    }

    /**
     * @param secret the shared HMAC secret, at least 32 bytes
     * @param issuer the required issuer ({@code iss}), or null
     * @param audience the required audience ({@code aud}), or null
     * @return an authenticator accepting HS256/384/512 tokens signed with the secret
     */
    public static JwtAuthenticator hmac(byte[] secret, String issuer, String audience) {
        if (secret == null || secret.length < 32) {
            throw new IllegalArgumentException("auth.hmacSecret must be at least 32 bytes, was " + (secret == null ? "unset" : secret.length + " bytes"));
        }
        return new JwtAuthenticator(new ImmutableSecret<>(secret.clone()), Set.of(JWSAlgorithm.HS256, JWSAlgorithm.HS384, JWSAlgorithm.HS512),
                issuer, audience);
    }

    /**
     * @param jwks a JWK set (the public keys of an OIDC provider)
     * @param issuer the required issuer, or null
     * @param audience the required audience, or null
     * @return an authenticator accepting RS256/384/512, PS256 and ES256/384/512 tokens signed by those keys
     */
    public static JwtAuthenticator jwks(JWKSet jwks, String issuer, String audience) {
        if (jwks == null || jwks.getKeys().isEmpty()) {
            throw new IllegalArgumentException("auth.jwks must hold at least one key");
        }
        return new JwtAuthenticator(new ImmutableJWKSet<>(jwks.toPublicJWKSet()), Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384,
                JWSAlgorithm.RS512, JWSAlgorithm.PS256, JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512), issuer, audience);
    }

    /**
     * Keys fetched from a URL (an OIDC provider's {@code jwks_uri}), kept for {@code cacheTtl} and fetched again
     * sooner when a token names a key not in the set (the provider rotated its keys); fetches are rate-limited and
     * retried once, and a key set that cannot be fetched refuses tokens rather than accepting them.
     *
     * @param jwksUrl where the JWK set is served (https in production)
     * @param issuer the required issuer, or null
     * @param audience the required audience, or null
     * @param cacheTtl how long a fetched set is used, at least 10 s
     * @return an authenticator accepting RS, PS and ES tokens signed by the served keys
     */
    public static JwtAuthenticator jwksUrl(java.net.URI jwksUrl, String issuer, String audience, java.time.Duration cacheTtl) {
        if (jwksUrl == null || !("https".equals(jwksUrl.getScheme()) || "http".equals(jwksUrl.getScheme())) || jwksUrl.getHost() == null) {
            throw new IllegalArgumentException("auth.jwksUrl must be an http(s) URL, was " + jwksUrl);
        }
        if (cacheTtl == null || cacheTtl.compareTo(java.time.Duration.ofSeconds(10)) < 0) {
            throw new IllegalArgumentException("auth.jwksCacheSeconds must be at least 10, was " + (cacheTtl == null ? null : cacheTtl.toSeconds()));
        }
        java.net.URL url;
        try {
            url = jwksUrl.toURL();
        } catch (java.net.MalformedURLException e) {
            throw new IllegalArgumentException("auth.jwksUrl is not a URL: " + jwksUrl, e);
        }
        long ttl = cacheTtl.toMillis();
        JWKSource<SecurityContext> source = com.nimbusds.jose.jwk.source.JWKSourceBuilder
                .create(url, new com.nimbusds.jose.util.DefaultResourceRetriever(5_000, 5_000, 512 * 1024))
                .cache(ttl, 15_000)
                .rateLimited(10_000)
                .retrying(true)
                .refreshAheadCache(false)
                .build();
        return new JwtAuthenticator(source, Set.of(JWSAlgorithm.RS256, JWSAlgorithm.RS384, JWSAlgorithm.RS512, JWSAlgorithm.PS256,
                JWSAlgorithm.ES256, JWSAlgorithm.ES384, JWSAlgorithm.ES512), issuer, audience);
    }

    /**
     * OpenID Connect discovery: reads {@code ISSUER/.well-known/openid-configuration} once (its {@code issuer} must be
     * {@code issuer} exactly), then checks tokens as {@link #jwksUrl} does with the {@code jwks_uri} it names, requiring
     * the issuer.
     *
     * @param issuer the provider's issuer URL
     * @param audience the required audience, or null
     * @param cacheTtl how long a fetched key set is used
     * @return the authenticator
     * @throws IOException when the discovery document cannot be read
     */
    public static JwtAuthenticator oidc(java.net.URI issuer, String audience, java.time.Duration cacheTtl) throws IOException {
        if (issuer == null || !("https".equals(issuer.getScheme()) || "http".equals(issuer.getScheme())) || issuer.getHost() == null) {
            throw new IllegalArgumentException("auth.oidcIssuer must be an http(s) URL, was " + issuer);
        }
        String base = issuer.toString().endsWith("/") ? issuer.toString() : issuer + "/";
        java.net.URI where = java.net.URI.create(base + ".well-known/openid-configuration");
        java.net.http.HttpResponse<String> r;
        try {
            r = java.net.http.HttpClient.newBuilder().connectTimeout(java.time.Duration.ofSeconds(5)).build().send(
                    java.net.http.HttpRequest.newBuilder(where).timeout(java.time.Duration.ofSeconds(10)).GET().build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading " + where, e);
        }
        if (r.statusCode() != 200 || r.body().length() > 256 * 1024) {
            throw new IOException("OIDC discovery at " + where + " answered " + r.statusCode());
        }
        com.fasterxml.jackson.databind.JsonNode doc = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body());
        String named = doc.path("issuer").asText("");
        if (!named.equals(issuer.toString())) {
            throw new IllegalArgumentException("auth.oidcIssuer: the discovery document at " + where + " names issuer \"" + named
                    + "\", not " + issuer);
        }
        String jwks = doc.path("jwks_uri").asText("");
        if (jwks.isEmpty()) {
            throw new IllegalArgumentException("auth.oidcIssuer: the discovery document at " + where + " has no jwks_uri");
        }
        return jwksUrl(java.net.URI.create(jwks), named, audience, cacheTtl);
    }

    /**
     * @param file a file with the HMAC secret (its bytes, trailing whitespace dropped) or a JWK set (JSON)
     * @param issuer the required issuer, or null
     * @param audience the required audience, or null
     * @return the authenticator
     * @throws IOException when the file cannot be read
     */
    public static JwtAuthenticator fromFile(Path file, String issuer, String audience) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (text.startsWith("{")) {
            try {
                return jwks(JWKSet.parse(text), issuer, audience);
            } catch (ParseException e) {
                throw new IllegalArgumentException("auth key file " + file + " is not a JWK set: " + e.getMessage(), e);
            }
        }
        return hmac(text.getBytes(StandardCharsets.UTF_8), issuer, audience);
    }

    @Override
    public Principal authenticate(String bearerToken) throws AuthException {
        if (bearerToken == null || bearerToken.isBlank() || bearerToken.length() > 8192) {
            throw new AuthException("a bearer token is required");
        }
        JWTClaimsSet claims;
        try {
            claims = processor.process(bearerToken, null);
        } catch (ParseException e) {
            throw new AuthException("the bearer token is not a JWT");
        } catch (BadJOSEException e) {
            throw new AuthException("the bearer token was refused: " + e.getMessage());
        } catch (JOSEException e) {
            throw new AuthException("the bearer token could not be verified: " + e.getMessage());
        }
        Set<String> groups = new LinkedHashSet<>();
        Object g = claims.getClaim("groups");
        if (g instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof String s && !s.isBlank()) {
                    groups.add(s);
                }
            }
        }
        return new Principal(claims.getSubject(), new HashSet<>(groups));
    }
}

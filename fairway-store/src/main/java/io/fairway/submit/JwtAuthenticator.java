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
        processor.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(audience == null ? null : Set.of(audience), exact.build(),
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

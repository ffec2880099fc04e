package io.fairway.submit;

/** Turns a request's bearer token into a {@link Principal}, or refuses it. */
@FunctionalInterface
public interface Authenticator {
    /**
     * @param bearerToken the token after {@code Authorization: Bearer}
     * @return who it names
     * @throws AuthException when the token is not valid (bad signature, expired, wrong issuer or audience)
     */
    Principal authenticate(String bearerToken) throws AuthException;

    /**
     * @param ways authenticators to try in order (e.g. JWTs of an OIDC provider, then Kubernetes TokenReview)
     * @return an authenticator taking a token that any of them takes; refusing it with each one's reason otherwise
     * @throws IllegalArgumentException when {@code ways} is empty
     */
    static Authenticator anyOf(java.util.List<Authenticator> ways) {
        java.util.List<Authenticator> all = java.util.List.copyOf(ways);
        if (all.isEmpty()) {
            throw new IllegalArgumentException("auth: at least one way to check tokens is needed");
        }
        if (all.size() == 1) {
            return all.get(0);
        }
        return token -> {
            StringBuilder why = new StringBuilder();
            for (Authenticator a : all) {
                try {
                    return a.authenticate(token);
                } catch (AuthException e) {
                    why.append(why.length() == 0 ? "" : "; ").append(e.getMessage());
                }
            }
            throw new AuthException(why.toString());
        };
    }

    /** A token was refused; the message says why, for the client. */
    final class AuthException extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param message why */
        public AuthException(String message) {
            super(message);
        }
    }
}

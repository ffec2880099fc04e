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

    /** A token was refused; the message says why, for the client. */
    final class AuthException extends Exception {
        private static final long serialVersionUID = 1L;

        /** @param message why */
        public AuthException(String message) {
            super(message);
        }
    }
}

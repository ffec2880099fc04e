package io.fairway.store;

/** The job store could not do what was asked (the database failed, or a write was refused); nothing of it was stored. */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed
     * @param cause why, or null
     */
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}

package io.fairway.store;

/**
 * A write of a leader was refused because another manager has taken the lead since (its term is higher): the
 * writer must stop acting. Nothing of the write was stored.
 */
public final class LeadershipLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final long term;
    private final long currentTerm;

    /**
     * @param term the writer's term
     * @param currentTerm the term in the store now
     * @param holder the manager that holds it
     */
    public LeadershipLostException(long term, long currentTerm, String holder) {
        super("the write of leader term " + term + " was refused: term " + currentTerm + " (held by " + holder + ") has taken over");
        this.term = term;
        this.currentTerm = currentTerm;
    }

    /** @return the refused writer's term */
    public long term() {
        return term;
    }

    /** @return the term in the store when the write was refused */
    public long currentTerm() {
        return currentTerm;
    }

    /**
     * @param t an exception
     * @return true when it, or one of its causes, is a {@link LeadershipLostException}
     */
    public static boolean in(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof LeadershipLostException) {
                return true;
            }
        }
        return false;
    }
}

package io.fairway.api.job;

import java.util.Map;

/**
 * Why a job is waiting: a code a program can act on, a sentence a user can read, and the numbers behind it.
 *
 * <p>Example: {@code QUOTA: needs 16 nvidia.com/gpu of flavor h100; ClusterQueue team-a has 4 unused, cohort
 * lends 8; 3 jobs ahead}, with details {@code {needed=16, unused=4, cohortLends=8}}.
 *
 * @param code the kind of reason
 * @param message a readable explanation with the numbers
 * @param details the numbers, by name
 */
public record PendingReason(Code code, String message, Map<String, Long> details) implements java.io.Serializable {
    /** Validates. */
    public PendingReason {
        code = code == null ? Code.NOT_YET_CONSIDERED : code;
        message = message == null ? code.name() : message;
        details = Map.copyOf(details == null ? Map.of() : details);
    }

    /**
     * The detail that says which round gave a reason ({@link #asOfRound()}): the engine adds it to every reason with
     * numbers that a round gives.
     */
    public static final String AS_OF_ROUND = "asOfRound";

    /**
     * The round that gave this reason, when the engine stamped it: a reason is as of the round that found it. A later
     * round that reaches the same answer for the job (the same code and the same sentence, only the numbers in it
     * moved: {@link #sameAnswer}) leaves the job this reason, so its numbers are those of that round, not of the
     * latest one (as Kueue's Pending condition message is as of the last time the workload was evaluated).
     *
     * @return the round number, or -1 when the reason carries none
     */
    public long asOfRound() {
        Long r = details.get(AS_OF_ROUND);
        return r == null ? -1 : r;
    }

    /**
     * @param round a round number
     * @return this reason stamped with the round that gave it ({@link #asOfRound()}), or this reason itself when it
     *     has no numbers or is stamped already
     */
    public PendingReason asOf(long round) {
        if (details.isEmpty() || details.containsKey(AS_OF_ROUND)) {
            return this;
        }
        Map<String, Long> d = new java.util.LinkedHashMap<>(details);
        d.put(AS_OF_ROUND, round);
        return new PendingReason(code, message, d);
    }

    /**
     * Whether {@code other} gives the same answer: the same code, the same named numbers, and the same sentence but
     * for the numbers in it (a number being a run of digits that does not continue a name, such as the {@code 16} of
     * {@code "needs 16 GPUs"} but not the {@code 7} of {@code "team-7"}). A reason without numbers is the same answer
     * only as an equal reason. The round a reason is from ({@link #AS_OF_ROUND}) is not compared.
     *
     * @param other another reason, or null
     * @return true when both say the same thing, perhaps with older numbers
     */
    public boolean sameAnswer(PendingReason other) {
        if (other == this) {
            return true;
        }
        if (other == null || other.code != code) {
            return false;
        }
        int own = details.size() - (details.containsKey(AS_OF_ROUND) ? 1 : 0);
        int theirs = other.details.size() - (other.details.containsKey(AS_OF_ROUND) ? 1 : 0);
        if (own != theirs) {
            return false;
        }
        if (own == 0) {
            return message.equals(other.message);
        }
        for (String k : details.keySet()) {
            if (!k.equals(AS_OF_ROUND) && !other.details.containsKey(k)) {
                return false;
            }
        }
        return message.equals(other.message) || sameButNumbers(message, other.message);
    }

    /**
     * Whether {@code other} is this reason found in another round: equal code, sentence and details, the round each
     * is from ({@link #AS_OF_ROUND}) aside.
     *
     * @param other another reason, or null
     * @return true when both are the same reason but for their rounds
     */
    public boolean equalsButRound(PendingReason other) {
        if (other == this) {
            return true;
        }
        if (other == null || other.code != code || !message.equals(other.message)) {
            return false;
        }
        int own = details.size() - (details.containsKey(AS_OF_ROUND) ? 1 : 0);
        int theirs = other.details.size() - (other.details.containsKey(AS_OF_ROUND) ? 1 : 0);
        if (own != theirs) {
            return false;
        }
        for (Map.Entry<String, Long> e : details.entrySet()) {
            if (!e.getKey().equals(AS_OF_ROUND) && !e.getValue().equals(other.details.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** Compares two sentences with every number (a digit run not continuing a name) counted as equal to any other. */
    private static boolean sameButNumbers(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char x = a.charAt(i);
            char y = b.charAt(j);
            if (x == y && !Character.isDigit(x)) { // neither starts a number: the common case, without looking back
                i++;
                j++;
                continue;
            }
            int nx = numberEnd(a, i);
            int ny = numberEnd(b, j);
            if ((nx < 0) != (ny < 0)) {
                return false;
            }
            if (nx >= 0) {
                i = nx;
                j = ny;
                continue;
            }
            if (x != y) {
                return false;
            }
            i++;
            j++;
        }
        return i == a.length() && j == b.length();
    }

    /**
     * Where a number of a reason's sentence ends, as {@link #sameAnswer} reads numbers: a digit run (with any
     * decimal fraction) that does not continue a name, so {@code "12 GPUs"} and {@code "of 3.5"} hold numbers and
     * {@code "node-12"}, {@code "v1.2"} or {@code "a100"} do not.
     *
     * @param sentence a reason's sentence
     * @param i a position in it
     * @return the position just after the number that starts at {@code i}, or -1 when none starts there
     */
    public static int numberEnd(String sentence, int i) {
        if (!Character.isDigit(sentence.charAt(i))) {
            return -1;
        }
        if (i > 0) {
            char p = sentence.charAt(i - 1);
            if (Character.isLetterOrDigit(p) || p == '-' || p == '_' || p == '.' || p == '/') {
                return -1;
            }
        }
        int end = i;
        while (end < sentence.length() && (Character.isDigit(sentence.charAt(end))
                || sentence.charAt(end) == '.' && end + 1 < sentence.length() && Character.isDigit(sentence.charAt(end + 1)))) {
            end++;
        }
        return end;
    }

    /**
     * @param code the code
     * @param message the message
     * @return a reason without numbers
     */
    public static PendingReason of(Code code, String message) {
        return new PendingReason(code, message, Map.of());
    }

    /** The kinds of pending reason. */
    public enum Code {
        /** Submitted since the last round. */
        NOT_YET_CONSIDERED,
        /** The LocalQueue does not exist (yet). */
        QUEUE_NOT_FOUND,
        /** The LocalQueue's ClusterQueue does not exist (yet). */
        CLUSTER_QUEUE_NOT_FOUND,
        /** The ClusterQueue is stopped (cordoned). */
        QUEUE_STOPPED,
        /** The ClusterQueue's namespaceSelector does not admit the LocalQueue's namespace. */
        NAMESPACE_NOT_ALLOWED,
        /** The job asks for a resource its ClusterQueue has no quota for. */
        RESOURCE_NOT_IN_QUOTA,
        /** Not enough quota (nominal plus what the cohort may lend) right now. */
        QUOTA,
        /** Quota is reserved; admission checks are running. */
        ADMISSION_CHECK,
        /** Quota would fit but no set of nodes can hold the gang right now. */
        INSUFFICIENT_CAPACITY,
        /** No set of nodes satisfies the gang's topology constraint right now. */
        NO_FITTING_TOPOLOGY,
        /** The gang is larger than any topology domain (or node) could ever hold. */
        GANG_LARGER_THAN_ANY_DOMAIN,
        /** Blocked behind the head of a StrictFIFO queue, or the policy chose other jobs. */
        POLICY_CHOSE_OTHERS,
        /** Its ClusterQueue or its cluster is absent. */
        CLUSTER_ABSENT,
        /** Waiting for nodes being provisioned. */
        WAITING_FOR_NODES,
        /** Preempted; waiting to run again. */
        PREEMPTED
    }
}

package io.fairway.submit;

import java.util.Set;

/**
 * Who makes a request, as its bearer token says.
 *
 * @param name the user (the token's subject)
 * @param groups the groups the token names
 */
public record Principal(String name, Set<String> groups) {
    /** Copies. */
    public Principal {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a principal needs a name");
        }
        groups = Set.copyOf(groups);
    }
}

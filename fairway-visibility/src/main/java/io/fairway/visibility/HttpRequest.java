package io.fairway.visibility;

import java.util.Map;

/**
 * One parsed HTTP request: method, the raw path (segments still URL-encoded), decoded query parameters (the first value of each name), header
 * names in lower case, the body, and the client's address (for the audit log).
 */
record HttpRequest(String method, String path, Map<String, String> query, Map<String, String> headers, byte[] body, String remote) {
    /** @return the header's value, or null */
    String header(String lowerCaseName) {
        return headers.get(lowerCaseName);
    }
}

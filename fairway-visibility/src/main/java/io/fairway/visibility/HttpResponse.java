package io.fairway.visibility;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** An answer: status, content type, body and extra headers; or a stream that writes until it is done. */
final class HttpResponse {
    /** Writes a long-lived answer (server-sent events) after the head; returns when the stream ends. */
    interface Streamer {
        void stream(OutputStream out) throws IOException;
    }

    final int status;
    final String contentType;
    final byte[] body;
    final Map<String, String> headers = new LinkedHashMap<>();
    final Streamer streamer;

    private HttpResponse(int status, String contentType, byte[] body, Streamer streamer) {
        this.status = status;
        this.contentType = contentType;
        this.body = body;
        this.streamer = streamer;
    }

    static HttpResponse of(int status, String contentType, byte[] body) {
        return new HttpResponse(status, contentType, body, null);
    }

    static HttpResponse json(int status, String json) {
        return of(status, "application/json; charset=utf-8", json.getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse stream(String contentType, Streamer streamer) {
        return new HttpResponse(200, contentType, new byte[0], streamer);
    }

    HttpResponse header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 413 -> "Payload Too Large";
            case 431 -> "Request Header Fields Too Large";
            case 503 -> "Service Unavailable";
            default -> status >= 500 ? "Internal Server Error" : "Error";
        };
    }
}

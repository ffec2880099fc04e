package io.fairway.sim.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * {@code fairway ctl}'s HTTP side: GETs and POSTs to a visibility API, turning its error answers and an unreachable
 * server into user errors that say what happened.
 */
final class CtlClient {
    static final ObjectMapper JSON = new ObjectMapper();
    private final String base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();

    CtlClient(String server, String token) {
        URI u;
        try {
            u = URI.create(server);
        } catch (IllegalArgumentException e) {
            throw new FairwayCommand.UserException("--server must be a URL like http://127.0.0.1:8080, was '" + server + "'");
        }
        if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https")) || u.getHost() == null) {
            throw new FairwayCommand.UserException("--server must be an http(s) URL like http://127.0.0.1:8080, was '" + server + "'");
        }
        this.base = server.replaceAll("/+$", "") + "/api/v1";
        this.token = token;
    }

    /** @return a path segment, URL-encoded */
    static String seg(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    JsonNode get(String path) {
        return parse(body(send("GET", path, Duration.ofSeconds(30))));
    }

    JsonNode post(String path) {
        return parse(body(send("POST", path, Duration.ofSeconds(30))));
    }

    static JsonNode parse(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            throw new FairwayCommand.UserException("the server's answer is not JSON: " + e.getMessage());
        }
    }

    /** @return the lines of a server-sent-event stream, as they come */
    Stream<String> stream(String path) {
        HttpRequest r = request("GET", path, null).header("Accept", "text/event-stream").build();
        try {
            HttpResponse<Stream<String>> resp = http.send(r, HttpResponse.BodyHandlers.ofLines());
            if (resp.statusCode() != 200) {
                String err = resp.body().reduce("", (a, b) -> a + b);
                throw new FairwayCommand.UserException(message(resp.statusCode(), err));
            }
            return resp.body();
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FairwayCommand.UserException("interrupted");
        }
    }

    private HttpRequest.Builder request(String method, String path, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody())
                .header("X-Fairway-User", System.getProperty("user.name", "unknown"));
        if (timeout != null) {
            b.timeout(timeout);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private HttpResponse<String> send(String method, String path, Duration timeout) {
        try {
            return http.send(request(method, path, timeout).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FairwayCommand.UserException("interrupted");
        }
    }

    private FairwayCommand.UserException unreachable(IOException e) {
        return new FairwayCommand.UserException("cannot reach the visibility API at " + base + ": " + (e.getMessage() == null
                ? e.getClass().getSimpleName() : e.getMessage()) + " (is the server running? see --server)");
    }

    private static String body(HttpResponse<String> r) {
        if (r.statusCode() != 200) {
            throw new FairwayCommand.UserException(message(r.statusCode(), r.body()));
        }
        return r.body();
    }

    private static String message(int status, String body) {
        try {
            JsonNode e = JSON.readTree(body == null || body.isEmpty() ? "{}" : body);
            if (e.hasNonNull("message")) {
                return "the server answered " + status + ": " + e.get("message").asText()
                        + (status == 403 ? " (start the server with --ui-write)" : status == 401 ? " (see --token-file)" : "");
            }
        } catch (IOException | RuntimeException notJson) {
            // answered below
        }
        return "the server answered " + status;
    }
}

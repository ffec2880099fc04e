package io.fairway.sim.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * {@code fairway ctl}'s HTTP side: GETs and POSTs to a visibility API, turning its error answers and an unreachable
 * server into user errors that say what happened. It does not trust the server: an answer is at most
 * {@link #MAX_BODY_BYTES} and the whole exchange (connecting, the head and the body) must finish within the
 * timeout; a stream's line is at most {@link #MAX_LINE_CHARS}; control characters (terminal escapes) and
 * bidirectional overrides in the server's text are removed before anything is printed.
 */
final class CtlClient {
    static final ObjectMapper JSON = new ObjectMapper();
    /** The largest answer read (a page of 1,000 pending jobs is about 0.5 MB). */
    static final int MAX_BODY_BYTES = 8 << 20;
    /** The longest line of a stream read. */
    static final int MAX_LINE_CHARS = 1 << 20;
    /** C0 and C1 control characters (ESC starts ANSI and OSC sequences), and the bidirectional overrides. */
    private static final Pattern UNPRINTABLE = Pattern.compile("[\\p{Cc}\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069]");
    private final String base;
    private final String token;
    private final Duration timeout;
    private final HttpClient http;

    CtlClient(String server, String token) {
        this(server, token, Duration.ofSeconds(30), null);
    }

    /**
     * @param server the API's base URL
     * @param token the bearer token, or null
     * @param timeout the longest one exchange may take, from connecting to the last byte of the answer
     * @param warnings told about a token about to go over plain http to another machine, or null
     */
    CtlClient(String server, String token, Duration timeout, PrintWriter warnings) {
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
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout.compareTo(Duration.ofSeconds(10)) < 0 ? timeout : Duration.ofSeconds(10)).build();
        if (token != null && warnings != null && u.getScheme().equals("http") && !loopback(u.getHost())) {
            warnings.println("fairway ctl: warning: the token goes to " + u.getHost() + " over plain http, readable by anyone on the way; "
                    + "use https, or reach the server through kubectl port-forward on 127.0.0.1");
            warnings.flush();
        }
    }

    /** @return true when the host is this machine (a loopback name or address); a name that does not resolve is not */
    static boolean loopback(String host) {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (h.equalsIgnoreCase("localhost")) {
            return true;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(h)) {
                if (!a.isLoopbackAddress()) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return the text without control characters or bidirectional overrides (what a terminal would act on) */
    static String clean(String text) {
        return text == null ? null : UNPRINTABLE.matcher(text).replaceAll("");
    }

    /** @return the tree with every field name and text value {@linkplain #clean cleaned} */
    static JsonNode clean(JsonNode n) {
        if (n instanceof TextNode t) {
            String c = clean(t.textValue());
            return c.equals(t.textValue()) ? t : TextNode.valueOf(c);
        }
        if (n instanceof ObjectNode o) {
            ObjectNode copy = JSON.createObjectNode();
            o.fields().forEachRemaining(e -> copy.set(clean(e.getKey()), clean(e.getValue())));
            return copy;
        }
        if (n instanceof ArrayNode a) {
            ArrayNode copy = JSON.createArrayNode();
            a.forEach(e -> copy.add(clean(e)));
            return copy;
        }
        return n;
    }

    /** @return a path segment, URL-encoded */
    static String seg(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    JsonNode get(String path) {
        return parse(body(send("GET", path, timeout)));
    }

    JsonNode post(String path) {
        return parse(body(send("POST", path, timeout)));
    }

    /**
     * @param path the path under {@code /api/v1}
     * @param contentType the body's type
     * @param body the body
     * @return the answer
     */
    JsonNode post(String path, String contentType, String body) {
        return parse(body(send(request("POST", path, timeout).POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .header("Content-Type", contentType), path, timeout)));
    }

    /**
     * @param path the path under {@code /api/v1}
     * @param waitTimeout the longest this exchange may take (a long poll's wait and then some)
     * @return the answer
     */
    JsonNode get(String path, Duration waitTimeout) {
        return parse(body(send("GET", path, waitTimeout)));
    }

    static JsonNode parse(String s) {
        try {
            return clean(JSON.readTree(s));
        } catch (IOException e) {
            throw new FairwayCommand.UserException("the server's answer is not JSON: " + clean(originalMessage(e)));
        }
    }

    private static String originalMessage(IOException e) {
        return e instanceof com.fasterxml.jackson.core.JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
    }

    /** @return the lines of a server-sent-event stream, as they come, each cleaned and at most {@link #MAX_LINE_CHARS} */
    Stream<String> stream(String path) {
        HttpRequest r = request("GET", path, null).header("Accept", "text/event-stream").build();
        try {
            HttpResponse<InputStream> resp = http.sendAsync(r, HttpResponse.BodyHandlers.ofInputStream()).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (resp.statusCode() != 200) {
                String err;
                try (InputStream in = resp.body()) {
                    err = new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
                }
                throw new FairwayCommand.UserException(message(resp.statusCode(), err));
            }
            BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8));
            java.util.Iterator<String> lines = new java.util.Iterator<>() {
                private String next;
                private boolean done;

                @Override
                public boolean hasNext() {
                    if (next == null && !done) {
                        next = readLine(in);
                        done = next == null;
                    }
                    return next != null;
                }

                @Override
                public String next() {
                    if (!hasNext()) {
                        throw new java.util.NoSuchElementException();
                    }
                    String n = next;
                    next = null;
                    return n;
                }
            };
            return StreamSupport.stream(Spliterators.spliteratorUnknownSize(lines, Spliterator.ORDERED), false).onClose(() -> {
                try {
                    in.close();
                } catch (IOException e) {
                    // closing anyway
                }
            });
        } catch (TimeoutException e) {
            throw timedOut();
        } catch (ExecutionException e) {
            throw unreachable(e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
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

    /** @return a line of at most {@link #MAX_LINE_CHARS}, cleaned; null at the end */
    private String readLine(BufferedReader in) {
        StringBuilder line = new StringBuilder();
        try {
            while (true) {
                int c = in.read();
                if (c < 0) {
                    return line.length() == 0 ? null : clean(line.toString());
                }
                if (c == '\n') {
                    return clean(line.toString());
                }
                if (c != '\r') {
                    if (line.length() >= MAX_LINE_CHARS) {
                        throw new FairwayCommand.UserException("the server sent a stream line longer than " + MAX_LINE_CHARS + " characters");
                    }
                    line.append((char) c);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the stream from " + base + " broke: " + clean(e.getMessage()), e);
        }
    }

    private HttpResponse<String> send(String method, String path, Duration timeout) {
        return send(request(method, path, timeout), path, timeout);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String path, Duration timeout) {
        CompletableFuture<HttpResponse<String>> answer = http.sendAsync(request.build(), info -> new Bounded(MAX_BODY_BYTES));
        try {
            // the whole exchange: a server that trickles its answer a byte at a time is given up on here
            return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            answer.cancel(true);
            throw timedOut();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TooLarge) {
                throw new FairwayCommand.UserException("the server's answer from " + base + path + " is larger than " + MAX_BODY_BYTES
                        + " bytes; refusing to read more");
            }
            throw unreachable(e.getCause() instanceof IOException io ? io : new IOException(e.getCause()));
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            throw new FairwayCommand.UserException("interrupted");
        }
    }

    private FairwayCommand.UserException timedOut() {
        return new FairwayCommand.UserException("the visibility API at " + base + " did not answer within " + timeout.toSeconds()
                + " s (see --timeout)");
    }

    /** Reads an answer of at most {@code max} bytes as UTF-8, failing with {@link TooLarge} beyond. */
    private static final class Bounded implements HttpResponse.BodySubscriber<String> {
        private final CompletableFuture<String> result = new CompletableFuture<>();
        private final ByteArrayOutputStream buf = new ByteArrayOutputStream();
        private final int max;
        private Flow.Subscription subscription;

        Bounded(int max) {
            this.max = max;
        }

        @Override
        public java.util.concurrent.CompletionStage<String> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                if (buf.size() + (long) b.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new TooLarge());
                    return;
                }
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                buf.writeBytes(bytes);
            }
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(buf.toString(StandardCharsets.UTF_8));
        }
    }

    /** An answer beyond {@link #MAX_BODY_BYTES}. */
    private static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("answer too large");
        }
    }

    private FairwayCommand.UserException unreachable(IOException e) {
        return new FairwayCommand.UserException("cannot reach the visibility API at " + base + ": " + clean(e.getMessage() == null
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
                return "the server answered " + status + ": " + clean(e.get("message").asText())
                        + (status == 403 && !e.get("message").asText().contains(" may not ") ? " (start the server with --ui-write)"
                        : status == 401 ? " (see --token-file)" : "");
            }
        } catch (IOException | RuntimeException notJson) {
            // answered below
        }
        return "the server answered " + status;
    }
}

package io.fairway.visibility;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Loopback-only hostile clients for the server tests: slowloris connections (a request head sent a byte at a time),
 * idle connections from a second loopback address, raw requests with a chosen {@code Host} and {@code Origin}, and
 * probes that count how many are answered in time. Every client is bounded in count and time.
 */
final class HostileClients implements AutoCloseable {
    /** A second loopback address (Linux answers the whole 127/8): connections from it count for another client. */
    static final String OTHER_LOOPBACK = "127.0.0.2";
    private final List<Socket> sockets = new ArrayList<>();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "slowloris");
        t.setDaemon(true);
        return t;
    });

    /** @return true when this machine lets a client bind {@link #OTHER_LOOPBACK} */
    static boolean otherLoopbackWorks() {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(OTHER_LOOPBACK, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static Socket connect(String from, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        return s;
    }

    /**
     * Opens {@code n} connections that send {@code head} one byte every {@code every}, never finishing it.
     *
     * @return the sockets (closed with this object)
     */
    List<Socket> slowloris(String from, int port, int n, String head, Duration every) throws IOException {
        byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
        List<Socket> opened = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = connect(from, port);
            opened.add(s);
            sockets.add(s);
            int[] next = {0};
            ticker.scheduleAtFixedRate(() -> {
                try {
                    if (!s.isClosed()) {
                        s.getOutputStream().write(bytes[next[0]++ % bytes.length]);
                        s.getOutputStream().flush();
                    }
                } catch (IOException closedByServer) {
                    // the server gave up on it: what a deadline should do
                }
            }, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        }
        return opened;
    }

    /** Opens {@code n} connections from {@code from} that send nothing. */
    List<Socket> idle(String from, int port, int n) throws IOException {
        List<Socket> opened = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try {
                Socket s = connect(from, port);
                opened.add(s);
                sockets.add(s);
            } catch (IOException refused) {
                // a full backlog refuses: fine for these tests
            }
        }
        return opened;
    }

    /** Sends a request on a connection of its own from {@code from} and keeps the socket, never reading it. */
    Socket sendAndNeverRead(String from, int port, String request) throws IOException {
        Socket s = connect(from, port);
        sockets.add(s);
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return s;
    }

    /** @return true when the server has closed the socket (end of stream or reset) within {@code wait} */
    static boolean closedByServer(Socket s, Duration wait) throws IOException {
        s.setSoTimeout((int) wait.toMillis());
        InputStream in = s.getInputStream();
        try {
            while (true) {
                int b = in.read();
                if (b < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException open) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /**
     * Sends one raw HTTP/1.1 request and reads the whole answer (the server closes each connection).
     *
     * @return the answer's text, head and body; empty when the server closed without an answer
     */
    static String raw(int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            try {
                return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException reset) {
                return "";
            }
        }
    }

    /** @return the status code of a raw answer, or -1 when there was none */
    static int status(String answer) {
        if (!answer.startsWith("HTTP/1.1 ")) {
            return -1;
        }
        return Integer.parseInt(answer.substring(9, 12));
    }

    /**
     * Sends {@code count} GETs one after another, each allowed {@code timeout}.
     *
     * @return how many were answered 200 in time
     */
    static int probes(String url, int count, Duration timeout) throws InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        int answered = 0;
        for (int i = 0; i < count; i++) {
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url)).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    answered++;
                }
            } catch (IOException unanswered) {
                // refused, reset or timed out: not answered
            }
        }
        return answered;
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}

package io.fairway.visibility;

import java.net.InetAddress;
import java.time.Duration;

/**
 * What every builder of a Fairway HTTP server sets alike: the address and port it listens on, its handler threads and
 * the deadline of each connection's exchange. Every setter checks its argument and refuses it with a message naming
 * the field, what it must be and what it was. The bounds that differ between servers (the most threads, the shortest
 * deadline) and the defaults are each builder's own.
 *
 * @param <B> the builder itself, returned by every setter
 */
public abstract class ServerBuilder<B extends ServerBuilder<B>> {
    private final int maxThreads;
    private final Duration shortestRequestTimeout;
    private InetAddress bind;
    private int port;
    private int threads = 4;
    private Duration requestTimeout = Duration.ofSeconds(10);

    /**
     * @param bind the address bound unless {@link #bind(InetAddress)} says otherwise
     * @param port the port unless {@link #port(int)} says otherwise
     * @param maxThreads the most handler threads {@link #threads(int)} accepts
     * @param shortestRequestTimeout the shortest deadline {@link #requestTimeout(Duration)} accepts (1 ms for a server
     *     that counts it in whole milliseconds)
     */
    protected ServerBuilder(InetAddress bind, int port, int maxThreads, Duration shortestRequestTimeout) {
        this.bind = bind;
        this.port = port;
        this.maxThreads = maxThreads;
        this.shortestRequestTimeout = shortestRequestTimeout;
    }

    /** @return this builder, as its own type */
    @SuppressWarnings("unchecked")
    protected final B self() {
        return (B) this;
    }

    /** @param address the address to bind @return this */
    public B bind(InetAddress address) {
        HardenedHttpServer.check(address != null, "bind", null, "an address");
        this.bind = address;
        return self();
    }

    /** @param port 0..65535 (0: any free port) @return this */
    public B port(int port) {
        HardenedHttpServer.check(port >= 0 && port <= 65535, "port", port, "0..65535");
        this.port = port;
        return self();
    }

    /** @param threads requests handled at once, from 1 to the builder's most @return this */
    public B threads(int threads) {
        HardenedHttpServer.check(threads >= 1 && threads <= maxThreads, "threads", threads, "1.." + maxThreads);
        this.threads = threads;
        return self();
    }

    /**
     * @param timeout the longest a connection's exchange (request head, body and answer) may take; positive, and at
     *     least the builder's shortest
     * @return this
     */
    public B requestTimeout(Duration timeout) {
        HardenedHttpServer.check(timeout != null && timeout.compareTo(shortestRequestTimeout) >= 0, "requestTimeout", timeout, "positive");
        this.requestTimeout = timeout;
        return self();
    }

    /** @return the address to bind */
    public InetAddress address() {
        return bind;
    }

    /** @return the port to bind (0: any free port) */
    public int port() {
        return port;
    }

    /** @return the handler threads */
    public int threads() {
        return threads;
    }

    /** @return the deadline of each connection's exchange */
    public Duration requestTimeout() {
        return requestTimeout;
    }
}

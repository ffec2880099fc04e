package io.fairway.visibility;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;

/**
 * A {@link ServerBuilder} that also sets the guards of a {@link HardenedHttpServer} against too many connections and
 * foreign host names: the caps on open connections, in all and per client address, and the host names answered
 * besides IP literals and {@code localhost}.
 *
 * @param <B> the builder itself, returned by every setter
 */
public abstract class GuardedServerBuilder<B extends GuardedServerBuilder<B>> extends ServerBuilder<B> {
    int maxConnections = 256;
    int maxConnectionsPerAddress = 32;
    Set<String> allowedHosts = Set.of();

    /**
     * @param bind the address bound unless set
     * @param port the port unless set
     * @param maxThreads the most handler threads accepted
     * @param shortestRequestTimeout the shortest request deadline accepted
     */
    protected GuardedServerBuilder(java.net.InetAddress bind, int port, int maxThreads, Duration shortestRequestTimeout) {
        super(bind, port, maxThreads, shortestRequestTimeout);
    }

    /** @param max connections open at once, 1..65536 (more wait in the listen backlog; default 256) @return this */
    public B maxConnections(int max) {
        this.maxConnections = HardenedHttpServer.connectionLimit("maxConnections", max);
        return self();
    }

    /** @param max connections open at once from one client address, 1..65536 (beyond: closed at once; default 32) @return this */
    public B maxConnectionsPerAddress(int max) {
        this.maxConnectionsPerAddress = HardenedHttpServer.connectionLimit("maxConnectionsPerAddress", max);
        return self();
    }

    /**
     * Host names the server answers for besides IP literals and {@code localhost} (a request naming any other host
     * gets 421, which keeps a DNS-rebinding page from reading it).
     *
     * @param hosts names such as a Service's DNS name ({@code fairway-ui.fairway-system.svc}): letters, digits, dots
     *     and dashes
     * @return this
     */
    public B allowedHosts(Collection<String> hosts) {
        this.allowedHosts = HardenedHttpServer.hostNames(hosts);
        return self();
    }
}

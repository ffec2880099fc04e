package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a coordination.k8s.io Lease, shared by the adapter's replicas ({@link FairwayAdapter}) and the
 * multi-cluster managers: fabric8's elector takes and renews the Lease and calls back when this candidate starts and
 * stops leading, and {@link #holdsNow()} reads the Lease before a write to prove the hold (fencing: a candidate that
 * cannot prove it leads does not write).
 */
public final class LeaseElection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseElection.class);

    private final KubernetesClient client;
    private final String namespace;
    private final String leaseName;
    private final String identity;
    private final Duration leaseDuration;
    private final Duration renewDeadline;
    private final Duration retryPeriod;
    private volatile CompletableFuture<?> elector;

    /**
     * @param client the client of the cluster holding the Lease
     * @param namespace the Lease's namespace
     * @param leaseName the Lease's name
     * @param identity this candidate's name in the Lease (its pod name)
     * @param leaseDuration how long the Lease holds without renewal
     * @param renewDeadline how long the leader tries to renew before it stops leading
     * @param retryPeriod how often candidates retry and the leader renews
     */
    public LeaseElection(KubernetesClient client, String namespace, String leaseName, String identity, Duration leaseDuration,
                         Duration renewDeadline, Duration retryPeriod) {
        this.client = client;
        this.namespace = namespace;
        this.leaseName = leaseName;
        this.identity = identity;
        this.leaseDuration = leaseDuration;
        this.renewDeadline = renewDeadline;
        this.retryPeriod = retryPeriod;
    }

    /**
     * Joins the election (once).
     *
     * @param name the elector's name (in fabric8's logs)
     * @param startedLeading called when this candidate starts leading
     * @param stoppedLeading called when it stops
     * @return this
     * @throws IllegalStateException when started already
     */
    public synchronized LeaseElection start(String name, Runnable startedLeading, Runnable stoppedLeading) {
        if (elector != null) {
            throw new IllegalStateException("leader election is started already (as " + identity + ")");
        }
        elector = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName(name)
                .withLock(new LeaseLock(namespace, leaseName, identity))
                .withLeaseDuration(leaseDuration)
                .withRenewDeadline(renewDeadline)
                .withRetryPeriod(retryPeriod)
                .withReleaseOnCancel(true)
                .withLeaderCallbacks(new LeaderCallbacks(startedLeading, stoppedLeading,
                        leader -> LOG.info("{}: the Lease is now held by {}", identity, leader == null ? "nobody" : leader)))
                .build()).build().start();
        LOG.info("{} is a candidate for the Lease {}/{}", identity, namespace, leaseName);
        return this;
    }

    /** @return this candidate's name in the Lease */
    public String identity() {
        return identity;
    }

    /** @return how long the leader tries to renew before it stops leading */
    public Duration renewDeadline() {
        return renewDeadline;
    }

    /**
     * Reads the Lease now and tells whether it proves this candidate holds it ({@link #holds}); a Lease that cannot be
     * read proves nothing.
     *
     * @return true when the Lease proves the hold
     */
    public boolean holdsNow() {
        try {
            Lease l = client.leases().inNamespace(namespace).withName(leaseName).get();
            return holds(l, identity, leaseDuration, ZonedDateTime.now());
        } catch (KubernetesClientException e) {
            LOG.warn("cannot read the Lease {}/{}: {}", namespace, leaseName, e.getMessage());
            return false;
        }
    }

    /**
     * Whether a Lease proves that {@code identity} holds it now: it names {@code identity}, and its renewTime is
     * set, not older than the lease duration, and not further in the future than one lease duration (a renewTime
     * our clock cannot vouch for — clocks that disagree — proves nothing). Conservative by design: a candidate that
     * cannot prove it leads does not write.
     *
     * @param l the Lease, or null
     * @param identity this candidate
     * @param leaseDuration the lease duration
     * @param now this candidate's clock
     * @return true when the Lease proves the hold
     */
    public static boolean holds(Lease l, String identity, Duration leaseDuration, ZonedDateTime now) {
        if (l == null || l.getSpec() == null || !identity.equals(l.getSpec().getHolderIdentity())) {
            return false;
        }
        ZonedDateTime renewed = l.getSpec().getRenewTime();
        if (renewed == null || renewed.isAfter(now.plus(leaseDuration))) {
            return false;
        }
        return renewed.plus(leaseDuration).isAfter(now);
    }

    /** Leaves the election, giving up the Lease when held. */
    @Override
    public void close() {
        CompletableFuture<?> e = elector;
        if (e != null) {
            e.cancel(true);
        }
    }
}

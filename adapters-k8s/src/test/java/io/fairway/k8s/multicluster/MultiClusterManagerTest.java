package io.fairway.k8s.multicluster;

import static io.fairway.k8s.Poll.until;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fairway.api.job.JobState;
import io.fairway.config.QueuesConfig;
import io.fairway.k8s.Keys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A manager cluster and three worker clusters, each its own mock API server: Jobs submitted to the manager run in one
 * worker, quota is global, a worker that goes away has its Job re-admitted elsewhere after the grace period and its
 * stale copy deleted when it comes back, and a restarted manager adopts the copies it finds. Passes are driven by
 * hand on an injected clock; after every step no Job runs in two workers.
 */
class MultiClusterManagerTest {
    private static final String NS = "ml";
    private static final Duration GRACE = Duration.ofSeconds(60);

    private String policy = "best-effort-fifo";

    /** @return the manager tests' queues: ClusterQueue {@code research} (512 cores, {@code gpuQuota} GPUs) and LocalQueue {@code ml/gpu} */
    static String queues(String policy, int gpuQuota) {
        return """
                policy: %s
                flavors:
                  - name: h100
                clusterQueues:
                  - name: research
                    resourceGroups:
                      - coveredResources: [cpu, nvidia.com/gpu]
                        flavors:
                          - name: h100
                            resources:
                              - {name: cpu, nominalQuota: 512}
                              - {name: nvidia.com/gpu, nominalQuota: %d}
                localQueues:
                  - {name: gpu, namespace: ml, clusterQueue: research}
                """.formatted(policy, gpuQuota);
    }

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final MockApi managerApi = new MockApi();
    private final Map<String, MockApi> workerApis = new LinkedHashMap<>();
    private final List<MultiClusterManager> managers = new ArrayList<>();

    private MultiClusterManager manager(int gpuQuota, String... workers) {
        if (workerApis.isEmpty()) {
            for (String w : workers) {
                MockApi api = new MockApi();
                api.node("gpu-1", 8);
                workerApis.put(w, api);
            }
        }
        Map<String, io.fabric8.kubernetes.client.KubernetesClient> clients = new LinkedHashMap<>();
        workerApis.forEach((w, api) -> clients.put(w, api.client));
        MultiClusterManager m = new MultiClusterManager(managerApi.client, clients, QueuesConfig.parse("test", queues(policy, gpuQuota)), now::get,
                new MultiClusterManager.Settings(GRACE, Duration.ofSeconds(10), null, "test-manager"));
        managers.add(m);
        return m;
    }

    @AfterEach
    void close() {
        managers.forEach(MultiClusterManager::close);
        workerApis.values().forEach(MockApi::close);
        managerApi.close();
    }

    /** One manager pass then every worker's executor pass; then no Job may run in two workers. */
    private void pass(MultiClusterManager m) {
        m.reconcileOnce();
        pollWorkers(m);
    }

    private void pollWorkers(MultiClusterManager m) {
        for (WorkerExecutor w : m.workers()) {
            w.pollOnce();
        }
        assertNoJobInTwoWorkers();
    }

    /** Over the workers whose API server answers: every Job has at most one unsuspended copy. */
    private void assertNoJobInTwoWorkers() {
        Map<String, List<String>> where = new LinkedHashMap<>();
        workerApis.forEach((w, api) -> {
            if (api.up()) {
                for (Job j : api.jobs()) {
                    if (!Boolean.TRUE.equals(j.getSpec().getSuspend())) {
                        where.computeIfAbsent(j.getMetadata().getNamespace() + "/" + j.getMetadata().getName(), k -> new ArrayList<>()).add(w);
                    }
                }
            }
        });
        where.forEach((job, ws) -> assertThat(ws).as("workers running " + job).hasSizeLessThanOrEqualTo(1));
    }

    /** @return the workers (that answer) holding a copy of the Job */
    private List<String> copiesOf(String name) {
        List<String> out = new ArrayList<>();
        workerApis.forEach((w, api) -> {
            if (api.up() && api.job(NS, name) != null) {
                out.add(w);
            }
        });
        return out;
    }

    private static String annotation(Job j, String key) {
        return j.getMetadata().getAnnotations() == null ? null : j.getMetadata().getAnnotations().get(key);
    }

    private List<String> eventReasons(String job) {
        return managerApi.client.v1().events().inNamespace(NS).list().getItems().stream()
                .filter(e -> e.getInvolvedObject() != null && job.equals(e.getInvolvedObject().getName()))
                .map(Event::getReason).toList();
    }

    @Test
    void aJobSubmittedToTheManagerRunsInOneWorkerAndItsStatusIsMirrored() {
        MultiClusterManager m = manager(16, "eu", "us");
        managerApi.submit(NS, "train", "gpu", 8, false); // created unsuspended: the manager suspends it
        pass(m);
        List<String> in = copiesOf("train");
        assertThat(in).hasSize(1);
        String worker = in.get(0);
        Job copy = workerApis.get(worker).job(NS, "train");
        assertThat(copy.getSpec().getSuspend()).isFalse();
        assertThat(copy.getSpec().getTemplate().getSpec().getNodeSelector()).containsEntry("kubernetes.io/hostname", "gpu-1");
        assertThat(copy.getMetadata().getLabels()).doesNotContainKey(Keys.QUEUE_LABEL);
        assertThat(annotation(copy, MultiClusterManager.EPOCH_ANNOTATION)).isNotNull();
        Job user = managerApi.job(NS, "train");
        assertThat(user.getSpec().getSuspend()).isTrue();
        assertThat(annotation(user, MultiClusterManager.WORKER_ANNOTATION)).isEqualTo(worker);
        assertThat(annotation(user, MultiClusterManager.STATE_ANNOTATION)).isEqualTo("ADMITTED");
        assertThat(annotation(user, Keys.ADMISSION_ANNOTATION)).isNull();

        workerApis.get(worker).running(NS, "train");
        pass(m);
        pass(m);
        assertThat(m.status(NS, "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(annotation(managerApi.job(NS, "train"), MultiClusterManager.STATE_ANNOTATION)).isEqualTo("RUNNING");

        workerApis.get(worker).complete(NS, "train");
        pass(m);
        pass(m);
        user = managerApi.job(NS, "train");
        assertThat(annotation(user, Keys.FINISHED_ANNOTATION)).isEqualTo("Succeeded");
        assertThat(annotation(user, MultiClusterManager.STATE_ANNOTATION)).isEqualTo("SUCCEEDED");
        assertThat(user.getSpec().getSuspend()).isTrue();
        assertThat(copiesOf("train")).isEmpty();
        assertThat(eventReasons("train")).contains(MultiClusterManager.REASON_DISPATCHED, MultiClusterManager.REASON_RUNNING,
                MultiClusterManager.REASON_FINISHED);
    }

    @Test
    void quotaIsGlobalAcrossWorkers() {
        MultiClusterManager m = manager(8, "eu", "us");
        managerApi.submit(NS, "a", "gpu", 8, true);
        now.addAndGet(1_000);
        managerApi.submit(NS, "b", "gpu", 8, true);
        pass(m);
        pass(m);
        // two workers have 8 free GPUs each, but the ClusterQueue's 8 GPUs are taken by a
        assertThat(copiesOf("a")).hasSize(1);
        assertThat(copiesOf("b")).isEmpty();
        Job b = managerApi.job(NS, "b");
        assertThat(annotation(b, MultiClusterManager.STATE_ANNOTATION)).isEqualTo("PENDING");
        assertThat(annotation(b, Keys.PENDING_REASON_ANNOTATION)).startsWith("QUOTA");
        String worker = copiesOf("a").get(0);
        workerApis.get(worker).complete(NS, "a");
        pass(m);
        pass(m);
        assertThat(copiesOf("a")).isEmpty();
        assertThat(copiesOf("b")).hasSize(1);
        assertThat(annotation(managerApi.job(NS, "b"), MultiClusterManager.STATE_ANNOTATION)).isEqualTo("ADMITTED");
        assertThat(annotation(managerApi.job(NS, "b"), Keys.PENDING_REASON_ANNOTATION)).isNull();
    }

    @Test
    void aJobThatCannotBeQueuedIsToldWhyAndQueuedOnceFixed() {
        MultiClusterManager m = manager(64, "eu", "us");
        managerApi.submit(NS, "bad", "Not_A_Queue", 8, true);
        pass(m);
        assertThat(annotation(managerApi.job(NS, "bad"), Keys.PENDING_REASON_ANNOTATION)).startsWith(Keys.REASON_INVALID);
        assertThat(copiesOf("bad")).isEmpty();
        managerApi.client.batch().v1().jobs().inNamespace(NS).withName("bad")
                .edit(j -> new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder(j).editMetadata().addToLabels(Keys.QUEUE_LABEL, "gpu").endMetadata().build());
        pass(m);
        assertThat(copiesOf("bad")).hasSize(1);
    }

    @Test
    void aLostWorkersJobIsReadmittedElsewhereAndItsStaleCopyDeletedWhenItComesBack() throws Exception {
        Copied c = trainCopied("eu", "us", "ap");
        MultiClusterManager m = c.manager();
        String first = c.worker();
        long firstEpoch = Long.parseLong(annotation(workerApis.get(first).job(NS, "train"), MultiClusterManager.EPOCH_ANNOTATION));
        workerApis.get(first).running(NS, "train");
        pass(m);
        assertThat(m.status(NS, "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);

        // the first worker's API server goes away; within the grace period nothing moves
        workerApis.get(first).stop();
        now.addAndGet(30_000);
        pass(m);
        assertThat(m.worker(first).reachable()).isFalse();
        assertThat(copiesOf("train")).isEmpty(); // only the lost worker (not answering) holds it
        assertThat(m.status(NS, "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(m.scheduler().clusters().clusterOf(NS + "/train")).isEqualTo(first);

        // past the grace period: declared lost, re-admitted in another worker at a newer epoch
        now.addAndGet(31_000);
        pollWorkers(m);
        MultiClusterManager.ReconcileResult r = m.reconcileOnce();
        assertThat(r.lost()).containsExactly(first);
        pollWorkers(m);
        List<String> second = copiesOf("train");
        assertThat(second).hasSize(1).doesNotContain(first);
        long secondEpoch = Long.parseLong(annotation(workerApis.get(second.get(0)).job(NS, "train"), MultiClusterManager.EPOCH_ANNOTATION));
        assertThat(secondEpoch).isGreaterThan(firstEpoch);
        Job user = managerApi.job(NS, "train");
        assertThat(annotation(user, MultiClusterManager.WORKER_ANNOTATION)).isEqualTo(second.get(0));
        assertThat(eventReasons("train")).contains(MultiClusterManager.REASON_REQUEUED);
        workerApis.get(second.get(0)).running(NS, "train");
        pass(m);

        // the lost worker comes back with its stale copy: the copy is deleted on rejoin, the job keeps running where it is
        workerApis.get(first).restart();
        assertThat(workerApis.get(first).job(NS, "train")).isNotNull();
        WorkerExecutor.PollResult back = m.worker(first).pollOnce();
        assertThat(back.reached()).isTrue();
        assertThat(back.deleted()).containsExactly(NS + "/train");
        assertThat(workerApis.get(first).job(NS, "train")).isNull();
        assertNoJobInTwoWorkers();
        pass(m);
        assertThat(copiesOf("train")).containsExactlyElementsOf(second);
        assertThat(m.status(NS, "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(m.scheduler().clusters().clusterOf(NS + "/train")).isEqualTo(second.get(0));
        assertThat(m.scheduler().checkInvariants()).isEmpty();
        // the rejoined worker's nodes take work again
        managerApi.submit(NS, "next", "gpu", 8, true);
        now.addAndGet(1_000);
        pass(m);
        pass(m);
        assertThat(copiesOf("next")).hasSize(1);
    }

    @Test
    void aRestartedManagerAdoptsTheCopiesInTheWorkersInsteadOfRunningJobsAgain() {
        Copied c = trainCopied("eu", "us");
        MultiClusterManager m1 = c.manager();
        String worker = c.worker();
        String copyUid = workerApis.get(worker).job(NS, "train").getMetadata().getUid();
        workerApis.get(worker).running(NS, "train");
        pass(m1);
        m1.close();

        MultiClusterManager m2 = manager(64);
        now.addAndGet(5_000);
        pass(m2);
        pass(m2);
        assertThat(copiesOf("train")).containsExactly(worker);
        Job copy = workerApis.get(worker).job(NS, "train");
        assertThat(copy.getMetadata().getUid()).isEqualTo(copyUid);
        assertThat(Long.parseLong(annotation(copy, MultiClusterManager.EPOCH_ANNOTATION))).isEqualTo(m2.scheduler().jobs().epoch(NS + "/train"));
        assertThat(m2.status(NS, "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);
        assertThat(m2.scheduler().clusters().clusterOf(NS + "/train")).isEqualTo(worker);
    }

    /** A first manager (workers eu and us) copies job {@code train} into a worker and stops; returns that worker. */
    private String copiedByAManagerThatStopped() {
        Copied c = trainCopied("eu", "us");
        c.manager().close();
        return c.worker();
    }

    /** A manager and the worker it copied job {@code train} into. */
    private record Copied(MultiClusterManager manager, String worker) {
    }

    /** @return a manager on these workers (64 GPUs of quota) that was given job {@code train} and copied it in its first pass */
    private Copied trainCopied(String... workers) {
        MultiClusterManager m = manager(64, workers);
        managerApi.submit(NS, "train", "gpu", 8, true);
        pass(m);
        return new Copied(m, copiesOf("train").get(0));
    }

    @Test
    void aJobThatEndedWhileNoManagerWatchedIsNotRunAgain() {
        String worker = copiedByAManagerThatStopped();
        workerApis.get(worker).complete(NS, "train");

        MultiClusterManager m2 = manager(64);
        now.addAndGet(5_000);
        pass(m2);
        pass(m2);
        assertThat(annotation(managerApi.job(NS, "train"), Keys.FINISHED_ANNOTATION)).isEqualTo("Succeeded");
        assertThat(copiesOf("train")).isEmpty();
        assertThat(m2.status(NS, "train")).isEmpty();
    }

    @Test
    void aRestartedManagerWaitsForSilentWorkersBeforeAdmitting() {
        String worker = copiedByAManagerThatStopped();
        workerApis.get(worker).stop();

        MultiClusterManager m2 = manager(64);
        assertThat(m2.reconcileOnce().acted()).isFalse(); // the worker holding the copy may still run it
        pollWorkers(m2);
        assertThat(copiesOf("train")).isEmpty();
        now.addAndGet(GRACE.toMillis() + 1);
        pollWorkers(m2);
        assertThat(m2.reconcileOnce().acted()).isTrue();
        pollWorkers(m2);
        assertThat(copiesOf("train")).hasSize(1).doesNotContain(worker);
    }

    @Test
    void otherWorkloadsInAWorkerAreNotDoubleBooked() {
        MultiClusterManager m = manager(64, "eu", "us");
        // a pod Fairway does not manage takes all 8 GPUs of eu's node
        workerApis.get("eu").client.pods().inNamespace("other").resource(new io.fabric8.kubernetes.api.model.PodBuilder()
                .withNewMetadata().withName("inference").withNamespace("other").endMetadata()
                .withNewSpec().withNodeName("gpu-1").addNewContainer().withName("main").withImage("busybox").withNewResources()
                .addToRequests("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("8"))
                .addToLimits("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("8")).endResources().endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
        pollWorkers(m);
        managerApi.submit(NS, "train", "gpu", 8, true);
        pass(m);
        assertThat(copiesOf("train")).containsExactly("us");
    }

    @Test
    void aJobThatFailsInItsWorkerIsMarkedFailed() {
        Copied c = trainCopied("eu", "us");
        MultiClusterManager m = c.manager();
        String worker = c.worker();
        workerApis.get(worker).client.batch().v1().jobs().inNamespace(NS).withName("train")
                .edit(j -> new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder(j).withStatus(new io.fabric8.kubernetes.api.model.batch.v1.JobStatusBuilder()
                        .withFailed(1).withConditions(new io.fabric8.kubernetes.api.model.batch.v1.JobConditionBuilder().withType("Failed")
                                .withStatus("True").withReason("BackoffLimitExceeded").withMessage("Job has reached the specified backoff limit").build())
                        .build()).build());
        pass(m);
        pass(m);
        Job user = managerApi.job(NS, "train");
        assertThat(annotation(user, Keys.FINISHED_ANNOTATION)).isEqualTo("Failed");
        assertThat(annotation(user, MultiClusterManager.STATE_ANNOTATION)).isEqualTo("FAILED");
        assertThat(copiesOf("train")).isEmpty();
        // the manager does not queue it again
        pass(m);
        assertThat(copiesOf("train")).isEmpty();
    }

    @Test
    void aPriorityLoweredWhileQueuedIsHonoured() {
        policy = "priority";
        MultiClusterManager m = manager(8, "eu", "us");
        managerApi.submit(NS, "a", "gpu", 8, true);
        now.addAndGet(1_000);
        managerApi.submit(NS, "b", "gpu", 8, true);
        now.addAndGet(1_000);
        managerApi.submit(NS, "c", "gpu", 8, true);
        pass(m);
        assertThat(copiesOf("a")).hasSize(1);
        managerApi.client.batch().v1().jobs().inNamespace(NS).withName("b")
                .edit(j -> new io.fabric8.kubernetes.api.model.batch.v1.JobBuilder(j).editMetadata().addToLabels(Keys.PRIORITY_LABEL, "-10").endMetadata().build());
        pass(m);
        workerApis.get(copiesOf("a").get(0)).complete(NS, "a");
        pass(m);
        pass(m);
        assertThat(copiesOf("c")).hasSize(1);
        assertThat(copiesOf("b")).isEmpty();
    }

    @Test
    void deletingTheUsersJobDeletesItsCopy() {
        MultiClusterManager m = manager(64, "eu", "us");
        managerApi.submit(NS, "train", "gpu", 8, true);
        pass(m);
        assertThat(copiesOf("train")).hasSize(1);
        managerApi.client.batch().v1().jobs().inNamespace(NS).withName("train").delete();
        pass(m);
        pass(m);
        assertThat(copiesOf("train")).isEmpty();
        assertThat(m.status(NS, "train")).isEmpty();
    }

    private static MultiClusterManager.LeaderElection election(String candidate) {
        // a long Lease keeps a busy build machine from taking it away mid-test; the leader gives it up when it closes,
        // so the takeover does not wait for it to expire
        return new MultiClusterManager.LeaderElection("fairway-system", "fairway-manager", candidate, Duration.ofSeconds(10),
                Duration.ofSeconds(8), Duration.ofMillis(200));
    }

    @Test
    void onlyTheLeadingManagerActsAndAnotherTakesOverWithoutRunningAnyJobTwice() {
        MultiClusterManager one = manager(8, "eu", "us").startLeaderElection(election("manager-one"));
        until(one::isLeader, "manager-one leads");
        MultiClusterManager two = manager(8).startLeaderElection(election("manager-two"));
        managerApi.submit(NS, "train", "gpu", 8, true);
        managerApi.submit(NS, "waiting", "gpu", 8, true); // waits: the 8-GPU quota is train's (same creation second; names break the tie)
        for (int i = 0; i < 5; i++) {
            pass(one);
            assertThat(two.reconcileOnce().acted()).isFalse();
            for (WorkerExecutor w : two.workers()) {
                assertThat(w.pollOnce().applied()).isZero();
            }
            assertNoJobInTwoWorkers();
        }
        assertThat(two.isLeader()).isFalse();
        assertThat(two.scheduler().jobs().all()).isEmpty(); // the standby neither reads nor schedules
        assertThat(copiesOf("train")).hasSize(1);
        assertThat(copiesOf("waiting")).isEmpty();
        String worker = copiesOf("train").get(0);
        String copyUid = workerApis.get(worker).job(NS, "train").getMetadata().getUid();
        workerApis.get(worker).running(NS, "train");
        pass(one);
        assertThat(one.status(NS, "train").orElseThrow().state()).isEqualTo(JobState.RUNNING);

        // The leader stops and gives up the Lease; the standby takes over and recovers from the clusters.
        one.close();
        until(two::isLeader, "manager-two leads");
        assertThat(managerApi.client.leases().inNamespace("fairway-system").withName("fairway-manager").get().getSpec().getHolderIdentity())
                .isEqualTo("manager-two");
        assertThat(one.reconcileOnce().acted()).isFalse();
        now.addAndGet(5_000);
        until(() -> {
            pass(two);
            return two.status(NS, "train").map(s -> s.state() == JobState.RUNNING).orElse(false);
        }, "manager-two adopts the running copy");
        pass(two);
        assertThat(copiesOf("train")).containsExactly(worker);
        Job copy = workerApis.get(worker).job(NS, "train");
        assertThat(copy.getMetadata().getUid()).as("the running copy is adopted, not made again").isEqualTo(copyUid);
        assertThat(Long.parseLong(annotation(copy, MultiClusterManager.EPOCH_ANNOTATION))).isEqualTo(two.scheduler().jobs().epoch(NS + "/train"));
        assertThat(copiesOf("waiting")).isEmpty();
        assertThat(two.status(NS, "waiting").orElseThrow().state()).isEqualTo(JobState.PENDING);

        // train ends in its worker: the new leader records it once and runs the waiting job, once
        workerApis.get(worker).complete(NS, "train");
        for (int i = 0; i < 4; i++) {
            pass(two);
        }
        assertThat(annotation(managerApi.job(NS, "train"), Keys.FINISHED_ANNOTATION)).isEqualTo("Succeeded");
        assertThat(copiesOf("waiting")).hasSize(1);
        assertThat(eventReasons("train")).filteredOn(MultiClusterManager.REASON_DISPATCHED::equals).hasSize(1);
        assertThat(eventReasons("waiting")).filteredOn(MultiClusterManager.REASON_DISPATCHED::equals).hasSize(1);
    }

    @Test
    void leaderElectionSettingsThatCannotWorkAreRefusedNamingTheField() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new MultiClusterManager.LeaderElection("fairway-system", "fairway-manager", "m-1",
                        Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2)))
                .isInstanceOf(io.fairway.api.InvalidSpecException.class).hasMessageContaining("renewDeadline").hasMessageContaining("PT10S");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MultiClusterManager.LeaderElection.of("fairway-system", "", "m-1"))
                .isInstanceOf(io.fairway.api.InvalidSpecException.class).hasMessageContaining("leaseName");
        MultiClusterManager m = manager(8, "eu").startLeaderElection(election("manager-one"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> m.startLeaderElection(election("manager-one")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("manager-one");
    }
}

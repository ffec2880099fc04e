package io.fairway.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.fairway.store.JobStore;
import io.fairway.submit.JobSets;
import io.fairway.submit.JwtAuthenticator;
import io.fairway.submit.QueuePermissions;
import io.fairway.submit.SubmitServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fairway ctl submit FILE} and {@code ctl watch JOBSET --queue Q} against a submission API with a job store. */
class CtlSubmitTest {
    private static final byte[] SECRET = "ctl-test-secret-0123456789abcdef-xyz".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private static String token(String user, String... groups) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject(user).claim("groups", List.of(groups))
                .expirationTime(new Date(System.currentTimeMillis() + 600_000)).build());
        jwt.sign(new MACSigner(SECRET));
        return jwt.serialize();
    }

    @Test
    void submitAnswersWithTheStoredJobIdsAndWatchFollowsTheSetUntilItEnds() throws Exception {
        List<String> handed = new ArrayList<>();
        try (JobStore store = JobStore.open(JobStore.Settings.sqlite(dir.resolve("jobs.db")))) {
            JobSets sets = new JobSets(store, (q, s, name, item) -> "{\"name\":\"" + name + "\"}", JobSets.Listener.onSubmitted(jobs -> jobs.forEach(j -> handed.add(j.job().id()))),
                    QueuePermissions.parse("queues:\n  - name: gpu\n    permissions:\n      - subjects: [{kind: Group, name: ml}]\n"
                    + "        verbs: [submit, watch]\n"), System::currentTimeMillis);
            try (SubmitServer api = SubmitServer.builder(sets, JwtAuthenticator.hmac(SECRET, null, null)).port(0).build()) {
                String server = "http://127.0.0.1:" + api.port();
                Path tok = Files.writeString(dir.resolve("token"), token("alice", "ml"));
                Path file = Files.writeString(dir.resolve("jobs.yaml"), """
                        queue: gpu
                        jobSetId: nightly
                        jobs:
                          - priority: 1
                            namespace: ml
                            podSpec: {containers: [{name: main, image: busybox, resources: {requests: {cpu: "1"}}}]}
                          - namespace: ml
                            parallelism: 4
                            podSpec: {containers: [{name: main, image: busybox, resources: {requests: {cpu: "1"}}}]}
                        """);
                FairwayCommandTest.Run r = FairwayCommandTest.run("ctl", "--server", server, "--token-file", tok.toString(), "submit", file.toString());
                assertThat(r.exit()).as(r.err()).isZero();
                assertThat(r.out()).contains("submitted 2 jobs to job set nightly of queue gpu");
                assertThat(handed).hasSize(2);
                handed.forEach(id -> assertThat(r.out()).contains(id));
                assertThat(store.jobSet("gpu", "nightly")).hasSize(2);

                // watch follows the set; the jobs end while it waits
                CompletableFuture<FairwayCommandTest.Run> watch = CompletableFuture.supplyAsync(() -> FairwayCommandTest.run("ctl", "--server", server,
                        "--token-file", tok.toString(), "watch", "nightly", "--queue", "gpu"));
                Thread.sleep(300);
                store.record(List.of(new JobStore.Transition(handed.get(0), "SUCCEEDED", 5, "done"),
                        new JobStore.Transition(handed.get(1), "FAILED", 6, "exit 1"))).join();
                FairwayCommandTest.Run w = watch.get();
                assertThat(w.exit()).as(w.err()).isEqualTo(1); // one failed
                assertThat(w.out()).contains("SUBMITTED").contains("SUCCEEDED").contains("FAILED").contains("exit 1")
                        .contains("job set nightly done: {FAILED=1, SUCCEEDED=1}");
                // resumable: from the last number only what came after (nothing, so a second watch ends at once on the history)
                long lastSeq = store.lastSeq();
                FairwayCommandTest.Run again = FairwayCommandTest.run("ctl", "--server", server, "--token-file", tok.toString(), "-o", "json",
                        "watch", "nightly", "--queue", "gpu", "--from", Long.toString(lastSeq - 1));
                assertThat(again.out().strip().lines()).hasSize(1).allMatch(l -> l.contains("\"seq\":" + lastSeq));

                // a user without the permission is told so
                Path other = Files.writeString(dir.resolve("other"), token("mallory", "guests"));
                FairwayCommandTest.Run no = FairwayCommandTest.run("ctl", "--server", server, "--token-file", other.toString(), "submit", file.toString());
                assertThat(no.exit()).isNotZero();
                assertThat(no.err()).contains("403").contains("mallory may not submit in queue gpu");
            }
        }
    }
}

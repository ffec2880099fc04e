package io.fairway.submit;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.fairway.store.JobStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The submission API refuses what it cannot take with the status and the field, and changes nothing then. */
class SubmitServerTest {
    private static final byte[] SECRET = "submit-server-test-secret-0123456789ab".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    private static String token(String user, long expiresInMillis) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder().subject(user).claim("groups", List.of("ml"))
                .expirationTime(new Date(System.currentTimeMillis() + expiresInMillis)).build());
        jwt.sign(new MACSigner(SECRET));
        return jwt.serialize();
    }

    @Test
    void badRequestsAreRefusedWithTheirStatusAndNothingIsStored() throws Exception {
        try (JobStore store = JobStore.open(JobStore.Settings.sqlite(dir.resolve("jobs.db")))) {
            JobSets sets = new JobSets(store, (q, s, name, item) -> "{}", JobSets.Listener.onSubmitted(jobs -> { }), QueuePermissions.parse("queues:\n  - name: gpu\n    permissions:\n      - subjects: [{kind: Group, name: ml}]\n"
                    + "        verbs: [submit, watch]\n"), System::currentTimeMillis);
            try (SubmitServer api = SubmitServer.builder(sets, JwtAuthenticator.hmac(SECRET, null, null)).port(0).build()) {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                String ok = token("alice", 600_000);
                String base = api.url() + "api/v1/jobsets";
                String set = "{\"queue\":\"gpu\",\"jobSetId\":\"s\",\"jobs\":[{\"podSpec\":{\"containers\":[{\"name\":\"m\"}]}}]}";
                record Case(String method, String url, String token, String body, int status, String says) {
                }
                for (Case c : List.of(
                        new Case("POST", base, token("alice", -120_000), set, 401, "Expired"),
                        new Case("GET", base, ok, null, 405, "use POST"),
                        new Case("POST", base + "/nowhere", ok, "{}", 404, "no such resource"),
                        new Case("POST", base, ok, set.replace("\"gpu\"", "\"GPU!\""), 400, "queue must be a queue name"),
                        new Case("POST", base, ok, set.replace("\"jobs\":[", "\"jobs\":[1,"), 400, "jobs[0] must be a mapping"),
                        new Case("POST", base, ok, "queue: [", 400, "not YAML or JSON"),
                        new Case("POST", base, ok, set.replace("\"gpu\"", "\"cpu\""), 403, "alice may not submit in queue cpu"),
                        new Case("GET", base + "/gpu/s/events?from=-1", ok, null, 400, "from must be an integer"),
                        new Case("GET", base + "/gpu/s/events?wait=3600", ok, null, 400, "wait must be an integer in 0..20"),
                        new Case("POST", base, ok, "x".repeat(SubmitServer.MAX_BODY_BYTES + 1), 413, "at most"))) {
                    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(c.url())).header("Authorization", "Bearer " + c.token());
                    b = c.body() == null ? b.GET() : b.method(c.method(), HttpRequest.BodyPublishers.ofString(c.body()));
                    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as(c.method() + " " + c.url() + " -> " + r.body()).isEqualTo(c.status());
                    assertThat(r.body()).as(c.url()).contains(c.says());
                }
                assertThat(store.lastSeq()).isZero();
                HttpResponse<String> good = http.send(HttpRequest.newBuilder(URI.create(base)).header("Authorization", "Bearer " + ok)
                        .POST(HttpRequest.BodyPublishers.ofString(set)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(good.statusCode()).as(good.body()).isEqualTo(200);
                assertThat(store.jobSet("gpu", "s")).hasSize(1);
            }
        }
    }
}

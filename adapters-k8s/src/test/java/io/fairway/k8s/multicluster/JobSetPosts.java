package io.fairway.k8s.multicluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/** Posts small job sets to a manager's submission API, as the crash and failover tests' clients do. */
final class JobSetPosts {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobSetPosts() {
    }

    /**
     * Posts one job set of {@code jobs} one-CPU jobs to queue {@code batch}.
     *
     * @param refused where an answer other than 200 is noted
     * @return true when the job set was acknowledged (its jobs are then in {@code acked})
     */
    static boolean post(HttpClient http, String url, String token, int jobs, Set<String> acked, List<String> refused, Duration timeout)
            throws IOException, InterruptedException {
        StringBuilder b = new StringBuilder("queue: batch\njobSetId: set-" + Long.toString(System.nanoTime(), 36) + "\njobs:\n");
        for (int j = 0; j < jobs; j++) {
            b.append("  - {namespace: ml, podSpec: {containers: [{name: main, image: busybox, resources: {requests: {cpu: \"1\"}}}]}}\n");
        }
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "api/v1/jobsets")).timeout(timeout)
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(b.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            refused.add(r.statusCode() + " " + r.body());
            return false;
        }
        for (JsonNode id : JSON.readTree(r.body()).get("jobIds")) {
            acked.add(id.asText());
        }
        return true;
    }

    /**
     * One client's burst: posts job sets of {@code jobs} one-CPU jobs, {@code pauseMillis} apart, until {@code stop}
     * is set, {@code maxSets} were posted, one is refused or a request fails (the manager died under it, or is paused:
     * not acknowledged).
     *
     * @param failed where a failed request is noted, or null
     */
    static void postUntilStopped(String url, String token, int jobs, int maxSets, long pauseMillis, AtomicBoolean stop, Set<String> acked,
                                 List<String> refused, List<String> failed) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int n = 0; n < maxSets && !stop.get(); n++) {
            try {
                if (!post(http, url, token, jobs, acked, refused, Duration.ofSeconds(5))) {
                    return;
                }
                if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                }
            } catch (IOException e) {
                if (failed != null) {
                    failed.add(String.valueOf(e));
                }
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

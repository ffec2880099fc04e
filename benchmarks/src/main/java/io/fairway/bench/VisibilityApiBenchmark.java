package io.fairway.bench;

import io.fairway.api.job.JobSpec;
import io.fairway.api.model.ClusterQueue;
import io.fairway.api.model.GpuTopology;
import io.fairway.api.model.LocalQueue;
import io.fairway.api.model.Node;
import io.fairway.api.model.ResourceFlavor;
import io.fairway.api.model.Resources;
import io.fairway.core.Scheduler;
import io.fairway.visibility.VisibilityServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The visibility API's pending page at 100,000 pending jobs of one ClusterQueue, through the whole request path:
 * an HTTP client on the same machine, the server's socket and thread pool, the snapshot, the page, the JSON. The
 * jobs wait in two LocalQueues at ten priorities (20 groups of the pending index); none fits (each asks for 16 GPUs
 * of an 8-GPU cluster), and a round has run so each has its reason.
 *
 * <ul>
 *   <li>{@code firstPage}: {@code GET /api/v1/clusterqueues/team-a/pending?limit=50} — the headline figure.</li>
 *   <li>{@code lastPage}: the same at {@code offset=99950}: the merge walks every job before the page.</li>
 *   <li>{@code job}: {@code GET /api/v1/jobs/{id}} of the last job (its position counts the whole queue).</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar VisibilityApiBenchmark -f 1 -wi 3 -i 5}; the median is
 * the {@code p0.50} line of each sample-time result.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@State(Scope.Benchmark)
public class VisibilityApiBenchmark {
    @Param({"100000"})
    public int pending;

    private Scheduler scheduler;
    private VisibilityServer server;
    private HttpClient http;
    private HttpRequest first;
    private HttpRequest last;
    private HttpRequest job;

    @Setup(Level.Trial)
    public void setUp() throws IOException, InterruptedException {
        scheduler = Scheduler.builder()
                .flavor(ResourceFlavor.of("h100"))
                .clusterQueue(ClusterQueue.builder("team-a").quota("h100", Resources.builder().gpus(8).build()).build())
                .localQueue(new LocalQueue("team-a", "gpu", "team-a"))
                .localQueue(new LocalQueue("team-a", "batch", "team-a"))
                .node(Node.builder("n1").capacity(Resources.builder().gpus(8).build()).gpus(GpuTopology.nvSwitch8("H100")).build())
                .build();
        List<JobSpec> jobs = new ArrayList<>(pending);
        for (int i = 0; i < pending; i++) {
            jobs.add(JobSpec.builder("j" + i).namespace("team-a").queue(i % 2 == 0 ? "gpu" : "batch").priority(i % 10)
                    .submitTimeMillis(i).members(1, Resources.builder().gpus(16).build()).build());
        }
        scheduler.submitAll(jobs);
        scheduler.runRound();
        server = VisibilityServer.builder(scheduler).port(0).build();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String api = server.url() + "api/v1";
        first = HttpRequest.newBuilder(URI.create(api + "/clusterqueues/team-a/pending?limit=50")).build();
        last = HttpRequest.newBuilder(URI.create(api + "/clusterqueues/team-a/pending?limit=50&offset=" + (pending - 50))).build();
        job = HttpRequest.newBuilder(URI.create(api + "/jobs/j" + (pending - 1))).build();
        String body = get(first);
        if (!body.contains("\"total\":" + pending) || !body.contains("\"position\":50,")) {
            throw new IllegalStateException("unexpected first page: " + body.substring(0, Math.min(300, body.length())));
        }
        System.out.println("first page of " + pending + " pending: " + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + " bytes");
    }

    private String get(HttpRequest r) throws IOException, InterruptedException {
        HttpResponse<String> resp = http.send(r, HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() != 200) {
            throw new IllegalStateException(r.uri() + " answered " + resp.statusCode() + ": " + resp.body());
        }
        return resp.body();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public String firstPage() throws IOException, InterruptedException {
        return get(first);
    }

    @Benchmark
    public String lastPage() throws IOException, InterruptedException {
        return get(last);
    }

    @Benchmark
    public String job() throws IOException, InterruptedException {
        return get(job);
    }
}

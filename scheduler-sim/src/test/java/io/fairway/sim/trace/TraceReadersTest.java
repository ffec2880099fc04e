package io.fairway.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fairway.api.job.Locality;
import io.fairway.api.job.PodSet;
import io.fairway.api.model.Resources;
import io.fairway.sim.SimJob;
import io.fairway.sim.TempFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TraceReadersTest extends TempFiles {

    @Test
    void phillyRowsAreSortedRebasedAndShapedIntoGangs() throws IOException {
        Path p = file("philly.csv", """
                timestamp,duration,num_gpus,gpu_time,cluster
                2017-10-09 07:01:55,66.0,1,66.0,11cb48
                2017-10-09 06:13:03,2951.0,16,47216.0,6214e9
                2017-10-09 06:13:36,2759.0,12,33108.0,6214e9
                """);
        Trace t = TraceFormat.PHILLY.reader().read(p);
        assertThat(t.jobs()).extracting(SimJob::id).containsExactly("philly-3", "philly-4", "philly-2");
        SimJob first = t.jobs().get(0);
        assertThat(first.submitMillis()).isZero();
        assertThat(first.durationSeconds()).isEqualTo(2951.0);
        assertThat(first.spec().queue()).isEqualTo("6214e9");
        assertThat(first.spec().namespace()).isEqualTo("default");
        PodSet ps = first.spec().podSets().get(0);
        assertThat(ps.count()).isEqualTo(2);
        assertThat(ps.resources()).isEqualTo(Resources.builder().gpus(8).build());
        assertThat(t.jobs().get(1).submitMillis()).isEqualTo(33_000);
        assertThat(t.jobs().get(1).spec().podSets().get(0).count()).isEqualTo(2);
        assertThat(t.jobs().get(1).spec().podSets().get(0).resources().gpus()).isEqualTo(6);
        assertThat(t.jobs().get(2).submitMillis()).isEqualTo((48 * 60 + 52) * 1000L);
        assertThat(t.localQueueKeys()).containsExactly("default/6214e9", "default/11cb48");
    }

    @Test
    void phillyBadRowNamesFileLineAndColumn() throws IOException {
        Path p = file("bad-philly.csv", """
                timestamp,duration,num_gpus,gpu_time,cluster
                2017-10-09 07:01:55,66.0,1,66.0,11cb48
                2017-10-09 07:02:55,66.0,two,66.0,11cb48
                """);
        assertThatThrownBy(() -> TraceFormat.PHILLY.reader().read(p))
                .isInstanceOf(TraceFormatException.class)
                .hasMessage(p + ":3: num_gpus \"two\" is not a whole number")
                .satisfies(e -> assertThat(((TraceFormatException) e).line()).isEqualTo(3));
    }

    @Test
    void phillyBadTimestampAndNegativeDurationAreRefused() throws IOException {
        Path ts = file("ts.csv", "timestamp,duration,num_gpus,gpu_time,cluster\nyesterday,66.0,1,66.0,a\n");
        assertThatThrownBy(() -> TraceFormat.PHILLY.reader().read(ts)).hasMessageStartingWith(ts + ":2: timestamp \"yesterday\"");
        Path d = file("d.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n\n2017-10-09 07:01:55,-5,1,66.0,a\n");
        assertThatThrownBy(() -> TraceFormat.PHILLY.reader().read(d)).hasMessage(d + ":3: duration must be > 0, was -5");
    }

    @Test
    void headerWithoutRequiredColumnsIsRefused() throws IOException {
        Path p = file("h.csv", "time,duration\n1,2\n");
        assertThatThrownBy(() -> TraceFormat.PHILLY.reader().read(p))
                .isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(p + ":1: header lacks column(s) [timestamp, num_gpus, cluster]");
    }

    @Test
    void tiresiasModelGivesPlacementSensitivity() throws IOException {
        Path p = file("tiresias.csv", """
                job_id,num_gpu,submit_time,iterations,model_name,duration,interval
                0,1,0,606,vgg19,164,30
                1,16,30,133,vgg16,147,23
                """);
        Trace t = TraceFormat.TIRESIAS.reader().read(p);
        SimJob j = t.jobs().get(1);
        assertThat(j.id()).isEqualTo("1");
        assertThat(j.submitMillis()).isEqualTo(30_000);
        assertThat(j.durationSeconds()).isEqualTo(147);
        assertThat(j.gpus()).isEqualTo(16);
        assertThat(j.spec().sensitivity().factor(Locality.RACK)).isCloseTo(0.72, within(1e-9));
        assertThat(j.spec().localQueueKey()).isEqualTo("default/default");
    }

    @Test
    void tiresiasBadRowNamesLine() throws IOException {
        Path p = file("t.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,0,0,1,vgg19,164,30\n");
        assertThatThrownBy(() -> TraceFormat.TIRESIAS.reader().read(p)).hasMessage(p + ":2: num_gpu must be >= 1, was 0");
    }

    @Test
    void theSharedTiresiasTraceReadsWhenPresent() {
        Path shared = Path.of("../../shared/traces/tiresias-60job.csv");
        if (Files.exists(shared)) {
            assertThat(TraceFormat.TIRESIAS.reader().read(shared).jobs()).hasSize(60);
        }
    }

    @Test
    void nativeFormatReadsEveryColumn() throws IOException {
        Path p = file("native.csv", """
                # a comment
                id,submit_seconds,duration_seconds,members,gpus_per_member,cpu_per_member,memory_per_member,queue,namespace,priority,job_set,model,min_members,checkpoint_interval_seconds,restore_seconds
                train-1,10,3600,2,4,8,64Gi,gpu,team-a,5,sweep-1,vgg16,1,600,30
                etl-1,0,60,,,500m,,cpu,,,,,,,
                """);
        Trace t = TraceFormat.NATIVE.reader().read(p);
        assertThat(t.jobs()).extracting(SimJob::id).containsExactly("etl-1", "train-1");
        SimJob train = t.jobs().get(1);
        assertThat(train.spec().namespace()).isEqualTo("team-a");
        assertThat(train.spec().queue()).isEqualTo("gpu");
        assertThat(train.spec().priority()).isEqualTo(5);
        assertThat(train.spec().jobSet()).isEqualTo("sweep-1");
        PodSet ps = train.spec().podSets().get(0);
        assertThat(ps.count()).isEqualTo(2);
        assertThat(ps.minCount()).isEqualTo(1);
        assertThat(ps.resources()).isEqualTo(Resources.builder().gpus(4).cpu(8).memoryGiB(64).build());
        assertThat(train.spec().checkpointing().intervalSeconds()).isEqualTo(600);
        assertThat(train.spec().checkpointing().restoreCostSeconds()).isEqualTo(30);
        SimJob etl = t.jobs().get(0);
        assertThat(etl.spec().podSets().get(0).resources()).isEqualTo(Resources.of("cpu", 500));
        assertThat(etl.spec().localQueueKey()).isEqualTo("default/cpu");
    }

    @Test
    void nativeBadRowsNameTheLine() throws IOException {
        Path none = file("n1.csv", "id,submit_seconds,duration_seconds,queue\nj1,0,10,q\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(none)).hasMessageStartingWith(none + ":2: job j1 asks for no resource");
        Path dup = file("n2.csv", "id,submit_seconds,duration_seconds,gpus\nj1,0,10,1\nj1,5,10,1\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(dup)).hasMessage(dup + ":3: job id j1 appears twice");
        Path qty = file("n3.csv", "id,submit_seconds,duration_seconds,cpu_per_member\nj1,0,10,lots\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(qty)).hasMessageStartingWith(qty + ":2: resource cpu: \"lots\" is not a quantity");
        Path fields = file("n4.csv", "id,submit_seconds,duration_seconds\nj1,0,10,1,2\n");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(fields)).hasMessage(fields + ":2: has 5 fields, the header 3");
    }

    @Test
    void formatIsDetectedFromTheHeader() throws IOException {
        Path p = file("x.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n");
        assertThat(Traces.read(p, null).jobs()).hasSize(1);
        Path unknown = file("y.csv", "a,b\n1,2\n");
        assertThatThrownBy(() -> Traces.read(unknown, null)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("--trace-format philly|tiresias|native");
        assertThatThrownBy(() -> TraceFormat.of("csv")).hasMessageContaining("known: philly, tiresias, native");
    }

    @Test
    void gangShapeRule() {
        assertThat(GangShape.forGpus(1)).isEqualTo(new GangShape(1, 1));
        assertThat(GangShape.forGpus(8)).isEqualTo(new GangShape(1, 8));
        assertThat(GangShape.forGpus(12)).isEqualTo(new GangShape(2, 6));
        assertThat(GangShape.forGpus(16)).isEqualTo(new GangShape(2, 8));
        assertThat(GangShape.forGpus(20)).isEqualTo(new GangShape(4, 5));
        assertThat(GangShape.forGpus(24)).isEqualTo(new GangShape(3, 8));
        assertThat(GangShape.forGpus(13)).isEqualTo(new GangShape(13, 1));
        assertThat(GangShape.forGpus(128)).isEqualTo(new GangShape(16, 8));
    }

    @Test
    void bundledSampleIsThePromisedWindow() {
        Trace t = Traces.bundledSample();
        assertThat(t.jobs()).hasSize(1500);
        assertThat(t.jobs()).allMatch(j -> j.gpus() <= 32);
        assertThat(t.jobs().get(0).submitMillis()).isZero();
        assertThat(t.localQueueKeys()).hasSize(10);
    }
}

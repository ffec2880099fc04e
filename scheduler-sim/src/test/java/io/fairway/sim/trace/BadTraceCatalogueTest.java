package io.fairway.sim.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.api.InvalidSpecException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A catalogue of bad trace files, for every reader: each is refused as a whole (no partial trace comes back, even
 * when the bad line is the last one) with a {@link TraceFormatException} whose message starts with
 * {@code file:line:} and names the column and the value.
 */
class BadTraceCatalogueTest {
    private static final String PHILLY = "timestamp,duration,num_gpus,gpu_time,cluster";
    private static final String PHILLY_OK = "2017-10-03 10:00:00,600,8,4800,vc1";
    private static final String TIRESIAS = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval";
    private static final String TIRESIAS_OK = "1,4,0,100,resnet50,600,10";
    private static final String NATIVE = "id,submit_seconds,duration_seconds,gpus,queue";
    private static final String NATIVE_OK = "ok,0,60,8,q";

    @TempDir
    Path dir;

    /**
     * Each row: case name | format | header | the bad line (after one good line, so it is line 3) | the message
     * after {@code file:3: }.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        // Philly
        "philly: num_gpus not a number        | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,600,two,1200,vc1   | num_gpus \"two\" is not a whole number",
        "philly: num_gpus fractional          | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,600,2.5,1200,vc1   | num_gpus \"2.5\" is not a whole number",
        "philly: negative GPU count           | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,600,-4,1200,vc1    | num_gpus must be >= 1, was -4",
        "philly: zero GPU count               | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,600,0,1200,vc1     | num_gpus must be >= 1, was 0",
        "philly: zero duration                | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,0,2,1200,vc1       | duration must be > 0, was 0",
        "philly: infinite duration            | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,Infinity,2,1,vc1   | duration \"Infinity\" is not a finite number",
        "philly: impossible date              | philly   | " + PHILLY + "   | 2017-02-30 10:01:00,600,2,1200,vc1     | timestamp \"2017-02-30 10:01:00\" is not of the form 2017-10-09 07:01:55",
        "philly: missing cluster              | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,600,2,1200,        | cluster is missing",
        "philly: too many fields              | philly   | " + PHILLY + "   | 2017-10-03 10:01:00,600,2,1200,vc1,x   | has 6 fields, the header 5",
        // Tiresias
        "tiresias: negative GPU count         | tiresias | " + TIRESIAS + " | 2,-1,0,100,vgg16,600,10                | num_gpu must be >= 1, was -1",
        "tiresias: num_gpu not a number       | tiresias | " + TIRESIAS + " | 2,four,0,100,vgg16,600,10              | num_gpu \"four\" is not a whole number",
        "tiresias: negative submit time       | tiresias | " + TIRESIAS + " | 2,1,-30,100,vgg16,600,10               | submit_time must be >= 0, was -30.0",
        "tiresias: negative duration          | tiresias | " + TIRESIAS + " | 2,1,30,100,vgg16,-600,10               | duration must be > 0, was -600",
        "tiresias: duration not a number      | tiresias | " + TIRESIAS + " | 2,1,30,100,vgg16,long,10               | duration \"long\" is not a number",
        "tiresias: duplicate job id           | tiresias | " + TIRESIAS + " | 1,1,30,100,vgg16,600,10                | job id 1 appears twice",
        "tiresias: missing job id             | tiresias | " + TIRESIAS + " | ,1,30,100,vgg16,600,10                 | job_id is missing",
        "tiresias: missing model              | tiresias | " + TIRESIAS + " | 2,1,30,100,,600,10                     | model_name is missing",
        // native
        "native: submit not a number          | native   | " + NATIVE + "   | j,soon,60,8,q                          | submit_seconds \"soon\" is not a number",
        "native: NaN submit                   | native   | " + NATIVE + "   | j,NaN,60,8,q                           | submit_seconds \"NaN\" is not a finite number",
        "native: negative submit              | native   | " + NATIVE + "   | j,-1,60,8,q                            | submit_seconds must be >= 0, was -1.0",
        "native: negative duration            | native   | " + NATIVE + "   | j,0,-60,8,q                            | duration_seconds must be > 0, was -60",
        "native: zero duration                | native   | " + NATIVE + "   | j,0,0,8,q                              | duration_seconds must be > 0, was 0",
        "native: negative GPU count           | native   | " + NATIVE + "   | j,0,60,-8,q                            | gpus must be >= 0, was -8",
        "native: GPU count not a number       | native   | " + NATIVE + "   | j,0,60,eight,q                         | gpus \"eight\" is not a whole number",
        "native: missing duration             | native   | " + NATIVE + "   | j,0,,8,q                               | duration_seconds is missing",
        "native: duplicate job id             | native   | " + NATIVE + "   | ok,5,60,8,q                            | job id ok appears twice",
        "native: unterminated quote           | native   | " + NATIVE + "   | '\"j,0,60,8,q'                          | has an unterminated quote",
        "native: members zero                 | native   | id,submit_seconds,duration_seconds,members,gpus_per_member | j,0,60,0,8 | members must be in 1..100000, was 0",
        "native: negative GPUs per member     | native   | id,submit_seconds,duration_seconds,members,gpus_per_member | j,0,60,2,-1 | gpus_per_member must be >= 0, was -1",
        "native: min_members above members    | native   | id,submit_seconds,duration_seconds,members,gpus_per_member,min_members | j,0,60,2,8,3 | min_members must be in 1..2, was 3",
        "native: priority out of range        | native   | id,submit_seconds,duration_seconds,gpus,priority | j,0,60,8,9999999999 | priority 9999999999 is out of range",
        "native: negative checkpoint interval | native   | id,submit_seconds,duration_seconds,gpus,checkpoint_interval_seconds | j,0,60,8,-5 | -5",
        "native: both gpus and members        | native   | id,submit_seconds,duration_seconds,gpus,members | j,0,60,8,2 | give either gpus or members/gpus_per_member, not both",
    })
    void aBadLineIsRefusedNamingTheLineTheColumnAndTheValue(String name, String format, String header, String bad, String message)
            throws Exception {
        String good = switch (format) {
            case "philly" -> PHILLY_OK;
            case "tiresias" -> TIRESIAS_OK;
            default -> header.equals(NATIVE) ? NATIVE_OK : "ok,0,60,1" + ",1".repeat(header.split(",").length - 4)
                    .replaceFirst(",1$", header.endsWith(",members") ? "," : ",1");
        };
        Path p = dir.resolve(format + ".csv");
        Files.writeString(p, header + "\n" + good + "\n" + bad + "\n");
        AtomicReference<Trace> read = new AtomicReference<>();
        assertThatThrownBy(() -> read.set(TraceFormat.of(format).reader().read(p))).as(name).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(p + ":3: ").hasMessageContaining(message);
        assertThat(read.get()).as("nothing half-read").isNull();
        // and the format is detected from the same header, with the same error
        assertThatThrownBy(() -> Traces.read(p, null)).as(name).hasMessageStartingWith(p + ":3: ");
    }

    @Test
    void theGoodLinesOfTheCatalogueReadOnTheirOwn() throws Exception {
        Path p = dir.resolve("ok.csv");
        for (String header : new String[] {"id,submit_seconds,duration_seconds,members,gpus_per_member",
            "id,submit_seconds,duration_seconds,members,gpus_per_member,min_members", "id,submit_seconds,duration_seconds,gpus,priority",
            "id,submit_seconds,duration_seconds,gpus,checkpoint_interval_seconds", "id,submit_seconds,duration_seconds,gpus,members"}) {
            String good = "ok,0,60,1" + ",1".repeat(header.split(",").length - 4).replaceFirst(",1$", header.endsWith(",members") ? "," : ",1");
            Files.writeString(p, header + "\n" + good + "\n");
            assertThat(TraceFormat.NATIVE.reader().read(p).jobs()).as(header).hasSize(1);
        }
        Files.writeString(p, PHILLY + "\n" + PHILLY_OK + "\n");
        assertThat(TraceFormat.PHILLY.reader().read(p).jobs()).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "empty file                  | philly   | ''                                      | is empty; expected a header with [timestamp, duration, num_gpus, cluster]",
        "only comments and blanks    | tiresias | '# nothing here\n\n'                    | is empty; expected a header with [job_id, num_gpu, submit_time, model_name, duration]",
        "header lacks a column       | tiresias | 'job_id,num_gpu,submit_time,duration\n' | header lacks column(s) [model_name] of the tiresias format",
        "column named twice          | native   | 'id,submit_seconds,duration_seconds,gpus,gpus\nj,0,60,8,8\n' | column gpus appears twice in the header",
    })
    void aBadFileIsRefusedNamingWhatIsMissing(String name, String format, String content, String message) throws Exception {
        Path p = dir.resolve("t.csv");
        Files.writeString(p, content.replace("\\n", "\n"));
        assertThatThrownBy(() -> TraceFormat.of(format).reader().read(p)).as(name).isInstanceOf(TraceFormatException.class)
                .hasMessageStartingWith(p.toString()).hasMessageContaining(message);
    }

    @Test
    void anUnknownFormatNameIsRefusedListingTheKnownOnes() {
        assertThatThrownBy(() -> TraceFormat.of("alibaba")).isInstanceOf(InvalidSpecException.class)
                .hasMessageContaining("unknown trace format \"alibaba\"; known: philly, tiresias, native");
    }

    @Test
    void aHeaderOfNoKnownFormatIsRefusedWithTheHeaderQuoted() throws Exception {
        Path p = dir.resolve("alibaba.csv");
        Files.writeString(p, "# a comment first\njob_name,inst_num,start_time,end_time\nx,1,0,10\n");
        assertThatThrownBy(() -> Traces.read(p, null)).isInstanceOf(TraceFormatException.class)
                .hasMessageContaining("cannot tell the trace format from the header \"job_name,inst_num,start_time,end_time\"");
    }

    @Test
    void aMissingOrUnreadableFileIsNamed() throws Exception {
        Path missing = dir.resolve("nope.csv");
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(missing)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read trace " + missing);
        Path binary = dir.resolve("binary.csv");
        Files.write(binary, new byte[] {'i', 'd', ',', (byte) 0xC3, (byte) 0x28, '\n'});
        assertThatThrownBy(() -> TraceFormat.NATIVE.reader().read(binary)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("cannot read trace " + binary);
        assertThat(Files.readString(dir.resolve("binary.csv"), StandardCharsets.ISO_8859_1)).startsWith("id,");
    }
}

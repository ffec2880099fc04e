package io.fairway.sim.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.sim.cli.FairwayCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code fairway ctl} against a server that does not play fair (on the loopback interface, bounded): an endless
 * answer, an answer trickled a byte a second, terminal escapes in its text; and a token about to go over plain http
 * to another machine.
 */
class CtlHostileServerTest {
    /** Answers every connection with what {@code answer} writes, on a thread of its own, until closed. */
    private static final class FakeServer implements AutoCloseable {
        interface Answer {
            void write(OutputStream out) throws IOException, InterruptedException;
        }

        final ServerSocket socket;
        private final Thread thread;

        FakeServer(Answer answer) throws IOException {
            socket = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
            thread = new Thread(() -> {
                while (!socket.isClosed()) {
                    try (Socket s = socket.accept()) {
                        InputStream in = s.getInputStream();
                        byte[] head = new byte[4];
                        // read the request head up to its blank line
                        for (int n = 0; !(head[0] == '\r' && head[1] == '\n' && head[2] == '\r' && head[3] == '\n'); n++) {
                            int b = in.read();
                            if (b < 0 || n > 65536) {
                                break;
                            }
                            System.arraycopy(head, 1, head, 0, 3);
                            head[3] = (byte) b;
                        }
                        answer.write(s.getOutputStream());
                    } catch (IOException | InterruptedException closed) {
                        // the client left, or the test ended
                    }
                }
            }, "fake-server");
            thread.setDaemon(true);
            thread.start();
        }

        String url() {
            return "http://127.0.0.1:" + socket.getLocalPort();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            thread.interrupt();
        }
    }

    record Run(int exit, String out, String err) {
    }

    private static Run ctl(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = FairwayCommand.newCommandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anEndlessAnswerIsCutAtTheBoundNotReadIntoMemory() throws Exception {
        byte[] chunk = "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,".repeat(512).getBytes(StandardCharsets.US_ASCII);
        try (FakeServer server = new FakeServer(out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            for (long sent = 0; sent < 64L << 20; sent += chunk.length) { // 64 MB: bounded, far past what ctl reads
                out.write(chunk);
            }
        })) {
            Run r = ctl("ctl", "--server", server.url(), "queues");
            assertThat(r.exit()).isEqualTo(FairwayCommand.USER_ERROR);
            assertThat(r.err()).contains("larger than").contains("bytes");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anAnswerTrickledAByteASecondTimesOut() throws Exception {
        try (FakeServer server = new FakeServer(out -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            for (int i = 0; i < 30; i++) { // each byte well inside any per-read timeout
                out.write(' ');
                out.flush();
                Thread.sleep(1000);
            }
        })) {
            Run r = ctl("ctl", "--server", server.url(), "--timeout", "2", "queues");
            assertThat(r.exit()).isEqualTo(FairwayCommand.USER_ERROR);
            assertThat(r.err()).contains("did not answer within 2 s");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void terminalEscapesInTheServersTextAreNotPrinted() throws Exception {
        String evil = "team-\\u001b]0;owned\\u0007a\\u001b[2J\\u009b31m\\u202e";
        String queues = "{\"items\":[{\"name\":\"" + evil + "\",\"cohort\":null,\"stopped\":false,\"pending\":0,\"running\":0,\"holding\":0,"
                + "\"resources\":[]}]}";
        String notFound = "{\"status\":404,\"error\":\"not found\",\"message\":\"no job \\u001b[31mx\\u001b]8;;http://evil/\\u0007\"}";
        List<String> answers = new ArrayList<>(List.of(queues));
        try (FakeServer ok = new FakeServer(out -> write(out, 200, answers.get(0)));
             FakeServer missing = new FakeServer(out -> write(out, 404, notFound))) {
            Run r = ctl("ctl", "--server", ok.url(), "queues");
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("team-]0;owneda[2J31m");
            assertNoControls(r.out());
            Run e = ctl("ctl", "--server", missing.url(), "job", "x");
            assertThat(e.exit()).isEqualTo(FairwayCommand.USER_ERROR);
            assertThat(e.err()).contains("404").contains("no job [31mx");
            assertNoControls(e.err());
        }
    }

    private static void assertNoControls(String s) {
        assertThat(s.chars().filter(c -> c == 0x1b || c == 0x07 || c == 0x9b || c == 0x202e).count()).as(s).isZero();
    }

    private static void write(OutputStream out, int status, String json) throws IOException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + b.length + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(b);
        out.flush();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aTokenAboutToGoOverPlainHttpToAnotherMachineIsWarnedAbout(@TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "ctl-test-token-0123456789\n");
        // 192.0.2.1 is TEST-NET-1 (never routed): the warning comes before any connection, which then times out
        Run far = ctl("ctl", "--server", "http://192.0.2.1:8080", "--token-file", token.toString(), "--timeout", "1", "cancel", "x");
        assertThat(far.err()).contains("warning").contains("192.0.2.1").contains("plain http");
        try (FakeServer near = new FakeServer(out -> write(out, 200, "{\"ok\":true,\"action\":\"cancel\",\"target\":\"x\",\"changed\":true}"))) {
            Run local = ctl("ctl", "--server", near.url(), "--token-file", token.toString(), "cancel", "x");
            assertThat(local.exit()).as(local.err()).isZero();
            assertThat(local.err()).doesNotContain("warning");
        }
        Run secure = ctl("ctl", "--server", "https://192.0.2.1:8443", "--token-file", token.toString(), "--timeout", "1", "cancel", "x");
        assertThat(secure.err()).doesNotContain("warning");
    }
}

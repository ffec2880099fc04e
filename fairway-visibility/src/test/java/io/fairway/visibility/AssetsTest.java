package io.fairway.visibility;

import static io.fairway.visibility.Fixture.error;
import static io.fairway.visibility.Fixture.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The UI's static files: from the classpath directory, with their content type and the CSP; nothing outside it. */
class AssetsTest {
    @Test
    void servesClasspathAssetsWithTypeAndCspAndNothingElse() throws Exception {
        Fixture f = new Fixture();
        try (VisibilityServer server = VisibilityServer.builder(f.scheduler).port(0).build()) {
            HttpResponse<String> js = send("GET", server.url() + "ui/probe-asset.js", null);
            assertThat(js.statusCode()).isEqualTo(200);
            assertThat(js.body()).contains("asset served from the classpath");
            assertThat(js.headers().firstValue("Content-Type")).contains("text/javascript; charset=utf-8");
            assertThat(js.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'");
            error("GET", server.url() + "ui/missing.js", null, 404);
            error("GET", server.url() + "ui/probe-asset.exe", null, 404);
            error("POST", server.url() + "ui/probe-asset.js", null, 405);
            for (String sneaky : new String[] {"/ui/../VisibilityServer.class", "/ui/%2e%2e/VisibilityServer.class", "/ui//etc/passwd"}) {
                try (Socket s = new Socket("127.0.0.1", server.port())) {
                    s.getOutputStream().write(("GET " + sneaky + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    s.setSoTimeout(10_000);
                    String status = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1)).readLine();
                    assertThat(status).as(sneaky).isEqualTo("HTTP/1.1 404 Not Found");
                }
            }
        }
    }
}

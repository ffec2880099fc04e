package io.fairway.visibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The settings the server builders share refuse what each server cannot honour, naming the field, what it must be
 * and the value; the bounds that differ stay each server's: the hardened server counts its deadlines in whole
 * milliseconds, the visibility server takes any positive request deadline.
 */
class ServerBuilderTest {
    private static HardenedHttpServer.Builder hardened() {
        Handler nothing = new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                return false;
            }
        };
        return HardenedHttpServer.builder("test", nothing, (status, title, message) -> HardenedHttpServer.Page.text(message));
    }

    private static VisibilityServer.Builder visibility() {
        return VisibilityServer.builder(() -> null);
    }

    @Test
    void theHardenedServersDeadlinesAreWholeMilliseconds() {
        assertThatThrownBy(() -> hardened().requestTimeout(Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("requestTimeout must be positive, was PT0.000999999S");
        assertThatThrownBy(() -> hardened().idleTimeout(Duration.ofNanos(999_999))).hasMessage("idleTimeout must be positive, was PT0.000999999S");
        assertThat(hardened().requestTimeout(Duration.ofMillis(1)).requestTimeout()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void theVisibilityServersRequestDeadlineIsAnyPositiveDuration() {
        assertThat(visibility().requestTimeout(Duration.ofNanos(1)).requestTimeout()).isEqualTo(Duration.ofNanos(1));
        assertThatThrownBy(() -> visibility().requestTimeout(Duration.ZERO)).hasMessage("requestTimeout must be positive, was PT0S");
        assertThatThrownBy(() -> visibility().requestTimeout(Duration.ofNanos(-1))).hasMessage("requestTimeout must be positive, was PT-0.000000001S");
        assertThatThrownBy(() -> visibility().requestTimeout(null)).hasMessage("requestTimeout must be positive, was null");
    }

    @Test
    void addressPortThreadsAndConnectionCapsAreCheckedAlikeWithEachServersDefaults() {
        for (GuardedServerBuilder<?> b : List.of(hardened(), visibility())) {
            assertThat(b.threads()).isEqualTo(4);
            assertThat(b.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
            assertThat(b.address().isLoopbackAddress()).isTrue();
            assertThatThrownBy(() -> b.bind(null)).hasMessage("bind must be an address, was null");
            assertThatThrownBy(() -> b.port(65536)).hasMessage("port must be 0..65535, was 65536");
            assertThatThrownBy(() -> b.port(-1)).hasMessage("port must be 0..65535, was -1");
            assertThatThrownBy(() -> b.threads(0)).hasMessage("threads must be 1..256, was 0");
            assertThatThrownBy(() -> b.threads(257)).hasMessage("threads must be 1..256, was 257");
            assertThat(b.threads(256).threads()).isEqualTo(256);
            assertThatThrownBy(() -> b.maxConnections(0)).hasMessage("maxConnections must be 1..65536, was 0");
            assertThatThrownBy(() -> b.maxConnectionsPerAddress(65537)).hasMessage("maxConnectionsPerAddress must be 1..65536, was 65537");
            assertThatThrownBy(() -> b.allowedHosts(List.of("evil/host"))).hasMessageStartingWith("allowedHosts must be host names");
            assertThat(b.allowedHosts(List.of("Fairway.Example")).allowedHosts).containsExactly("fairway.example");
        }
        assertThat(hardened().port()).isZero();
        assertThat(visibility().port()).isEqualTo(8080);
    }
}

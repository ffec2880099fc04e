package io.fairway.visibility;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The web UI's static files, read from the classpath directory {@code io/fairway/visibility/ui/}: {@code /} is its
 * {@code index.html}, {@code /ui/NAME} its file NAME. Names are restricted to a safe alphabet (no {@code ..}), the
 * content type comes from the extension, and every answer carries the server's Content-Security-Policy.
 */
final class Assets {
    static final String ROOT = "io/fairway/visibility/ui/";
    private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*(\\.[A-Za-z0-9]+)+");
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("html", "text/html; charset=utf-8"), Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("mjs", "text/javascript; charset=utf-8"), Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("json", "application/json; charset=utf-8"), Map.entry("svg", "image/svg+xml"), Map.entry("png", "image/png"),
            Map.entry("ico", "image/x-icon"), Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("woff2", "font/woff2"));
    static final int MAX_ASSET_BYTES = 4 << 20;

    private Assets() {
    }

    static HttpResponse serve(String path) {
        String name = path.equals("/") || path.equals("/ui") || path.equals("/ui/") || path.equals("/index.html") ? "index.html"
                : path.startsWith("/ui/") ? path.substring(4) : null;
        if (name == null || !SAFE.matcher(name).matches()) {
            throw ApiException.notFound("no such page: " + VisibilityJson.clip(path));
        }
        String ext = name.substring(name.lastIndexOf('.') + 1);
        String type = TYPES.get(ext);
        if (type == null) {
            throw ApiException.notFound("no such page: " + VisibilityJson.clip(path));
        }
        try (InputStream in = Assets.class.getClassLoader().getResourceAsStream(ROOT + name)) {
            if (in == null) {
                throw ApiException.notFound("no such page: " + VisibilityJson.clip(path));
            }
            byte[] body = in.readNBytes(MAX_ASSET_BYTES);
            return HttpResponse.of(200, type, body).header("Cache-Control", "no-cache");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the UI asset " + name, e);
        }
    }
}

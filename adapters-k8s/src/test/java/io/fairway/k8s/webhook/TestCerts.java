package io.fairway.k8s.webhook;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/** A self-signed certificate for the tests, made with the JDK's keytool and written as a TLS Secret's two PEM files. */
final class TestCerts {
    private TestCerts() {
    }

    /**
     * @param dir the folder to write {@code tls.crt} and {@code tls.key} into
     * @param cn the certificate's common name (also its DNS name)
     * @param keyAlg RSA or EC
     * @return the certificate
     */
    static Certificate write(Path dir, String cn, String keyAlg) throws Exception {
        Path p12 = Files.createTempFile(dir, "ks", ".p12");
        Files.delete(p12);
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process proc = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "tls", "-keyalg", keyAlg, "-keysize", keyAlg.equals("EC") ? "256" : "2048",
                "-dname", "CN=" + cn, "-ext", "SAN=dns:" + cn + ",ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", p12.toString(),
                "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!proc.waitFor(60, TimeUnit.SECONDS) || proc.exitValue() != 0) {
            throw new IOException("keytool failed: " + out);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, "changeit".toCharArray());
        }
        PrivateKey key = (PrivateKey) ks.getKey("tls", "changeit".toCharArray());
        Certificate cert = ks.getCertificate("tls");
        Files.writeString(dir.resolve("tls.crt"), pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(dir.resolve("tls.key"), pem("PRIVATE KEY", key.getEncoded()));
        Files.delete(p12);
        return cert;
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}

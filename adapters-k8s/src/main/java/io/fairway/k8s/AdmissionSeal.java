package io.fairway.k8s;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proof that an admission recorded on a queued object was written by Fairway: an HMAC-SHA256, keyed by a Secret only
 * the controller reads, over the object's identity (uid, namespace, name) and the exact text of its
 * {@value Keys#ADMISSION_ANNOTATION} and {@value Keys#ORIGINAL_TEMPLATE_ANNOTATION} annotations, kept in
 * {@value Keys#SEAL_ANNOTATION}. A tenant can write annotations on their own objects but cannot compute the seal, so
 * a copied, edited or invented admission or original template does not verify: the adapter neither adopts the
 * object as admitted nor applies the template record, and suspends the object if it runs. Because the seal covers
 * the uid, an admission copied from another object does not verify either.
 *
 * <p>The key lives in the Secret {@value #SECRET_NAME} (data key {@value #DATA_KEY}) of the controller's namespace;
 * the first controller to start creates it with 32 random bytes, and every replica and every restart reads the
 * same key, so admissions survive restarts and leader changes.
 */
final class AdmissionSeal {
    private static final Logger LOG = LoggerFactory.getLogger(AdmissionSeal.class);
    /** The Secret holding the key. */
    static final String SECRET_NAME = "fairway-admission-key";
    /** Its data key. */
    static final String DATA_KEY = "key";
    private static final String ALGORITHM = "HmacSHA256";
    private static final String VERSION = "v1:";

    private final SecretKeySpec key;

    /** @param key at least 16 bytes */
    AdmissionSeal(byte[] key) {
        if (key == null || key.length < 16) {
            throw new IllegalArgumentException("the admission key must have at least 16 bytes, had " + (key == null ? 0 : key.length));
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
    }

    /**
     * Reads the key from its Secret, creating the Secret with a random key when there is none (a concurrent creation
     * by another replica is read back).
     *
     * @param client a client allowed to get and create Secrets in the namespace
     * @param namespace the controller's namespace
     * @return the seal
     * @throws KubernetesClientException when the Secret can be neither read nor created
     */
    static AdmissionSeal load(KubernetesClient client, String namespace) {
        Secret s = client.secrets().inNamespace(namespace).withName(SECRET_NAME).get();
        if (s == null) {
            byte[] fresh = new byte[32];
            new SecureRandom().nextBytes(fresh);
            try {
                s = client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata().withName(SECRET_NAME)
                        .withNamespace(namespace).addToLabels("app.kubernetes.io/name", "fairway").endMetadata()
                        .addToData(DATA_KEY, Base64.getEncoder().encodeToString(fresh)).build()).create();
                LOG.info("created the admission key Secret {}/{}", namespace, SECRET_NAME);
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409) {
                    throw e;
                }
                s = client.secrets().inNamespace(namespace).withName(SECRET_NAME).get();
            }
        }
        String data = s == null || s.getData() == null ? null : s.getData().get(DATA_KEY);
        if (data == null) {
            throw new IllegalStateException("the Secret " + namespace + "/" + SECRET_NAME + " has no data key \"" + DATA_KEY + "\"");
        }
        return new AdmissionSeal(Base64.getDecoder().decode(data.trim()));
    }

    /**
     * @param object the object the admission is for (its uid, namespace and name are sealed)
     * @param admission the text of its admission annotation
     * @param original the text of its original-template annotation, or null
     * @return the seal's value
     */
    String seal(HasMetadata object, String admission, String original) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            // the uid names the object uniquely; apiVersion and kind are left out because a list from a real API
            // server does not set them on its items (an informer's copy may lack what a GET's has)
            String payload = String.join("\n", "fairway-admission", String.valueOf(object.getMetadata().getUid()),
                    String.valueOf(object.getMetadata().getNamespace()), object.getMetadata().getName(), admission, original == null ? "" : original);
            return VERSION + Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(payload.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /**
     * @param object an object as read from the API server
     * @return true when it carries an admission and its seal matches (a missing or wrong seal: false)
     */
    boolean verify(HasMetadata object) {
        String admission = Kube.annotation(object, Keys.ADMISSION_ANNOTATION);
        String seal = Kube.annotation(object, Keys.SEAL_ANNOTATION);
        if (admission == null || seal == null) {
            return false;
        }
        String expected = seal(object, admission, Kube.annotation(object, Keys.ORIGINAL_TEMPLATE_ANNOTATION));
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), seal.getBytes(StandardCharsets.UTF_8));
    }
}

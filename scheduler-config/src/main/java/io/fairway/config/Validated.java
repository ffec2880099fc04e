package io.fairway.config;

/**
 * A config record that can check itself once built. The YAML reader calls {@link #validate()} right after
 * reading each such record, so an error is reported at the line where the record starts.
 */
public interface Validated {
    /** @throws io.fairway.api.InvalidSpecException naming the field and the value when the record is invalid */
    void validate();
}

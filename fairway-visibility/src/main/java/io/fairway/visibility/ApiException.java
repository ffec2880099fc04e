package io.fairway.visibility;

/** An answer other than 200, with the JSON error body's fields: thrown by a handler, turned into the answer. */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;
    final String error;
    final String parameter;
    final String value;

    ApiException(int status, String error, String parameter, String value, String message) {
        super(message);
        this.status = status;
        this.error = error;
        this.parameter = parameter;
        this.value = value;
    }

    static ApiException badParameter(String parameter, String value, String message) {
        return new ApiException(400, "bad parameter", parameter, value, message);
    }

    static ApiException notFound(String message) {
        return new ApiException(404, "not found", null, null, message);
    }

    static ApiException status(int status, String error, String message) {
        return new ApiException(status, error, null, null, message);
    }
}
